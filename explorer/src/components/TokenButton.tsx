import { useEffect, useState } from "react";
import { currentToken, onTokenChange, setToken } from "../api/token";

/** Paste an API token (kept in this tab's sessionStorage only), or forget it. */
export function TokenButton() {
  const [token, setShown] = useState(currentToken());
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState("");
  useEffect(() => onTokenChange(() => setShown(currentToken())), []);
  if (editing)
    return (
      <form
        className="token-form"
        onSubmit={(event) => {
          event.preventDefault();
          setToken(draft);
          setDraft("");
          setEditing(false);
          window.location.reload();
        }}
      >
        <input
          autoFocus
          type="password"
          aria-label="API token"
          placeholder="pgt_… (kept for this tab only)"
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => e.key === "Escape" && setEditing(false)}
        />
        <button type="submit" className="button primary">Use</button>
        <button type="button" className="button" onClick={() => setEditing(false)}>Cancel</button>
      </form>
    );
  return token ? (
    <span className="token-state">
      <span className="token-chip" title="Requests carry this tab's token">Token in use</span>
      <button
        className="button small"
        onClick={() => {
          setToken(undefined);
          window.location.reload();
        }}
      >
        Forget
      </button>
    </span>
  ) : (
    <button className="button small" onClick={() => setEditing(true)} title="Paste an API token for this tab">
      Token…
    </button>
  );
}
