import { ApiError } from "../api/client";

/** A failed request explained: the server's code and message, the field it names, what to do. */
export function ErrorNotice({ error, onRetry, compact }: { error: unknown; onRetry?: () => void; compact?: boolean }) {
  const typed = error instanceof ApiError ? error : new ApiError(error instanceof Error ? error.message : String(error), "INTERNAL_SERVER_ERROR");
  return (
    <div className={`notice error${compact ? " compact" : ""}`} role="alert" data-code={typed.code}>
      <div className="notice-title">
        <code>{typed.code}</code> {typed.message}
      </div>
      {typed.field && (
        <div className="notice-line">
          Field: <code>{typed.field}</code>
        </div>
      )}
      {typeof typed.extensions.budgetMs === "number" && <div className="notice-line">Budget: {typed.extensions.budgetMs} ms</div>}
      {typed.hint && <div className="notice-hint">{typed.hint}</div>}
      {onRetry && (
        <button className="button small" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}
