import { useEffect, useState } from "react";

/**
 * The as-of instant: the graph as it stood then (edges recorded later left out). Steps back through the
 * times runs on screen were recorded, or any instant typed in; "Now" returns to the present.
 */
export function AsOfControl({ value, stops, onChange }: { value?: string; stops: readonly string[]; onChange(asOf: string | undefined): void }) {
  const [draft, setDraft] = useState(toLocalInput(value));
  useEffect(() => setDraft(toLocalInput(value)), [value]);
  const sorted = [...new Set(stops)].sort();
  const current = value ? Date.parse(value) : Infinity;
  // Back: the latest recording strictly before what is shown now, minus nothing (as-of includes its instant).
  const earlier = [...sorted].reverse().find((t) => Date.parse(t) < current);
  const before = earlier ? new Date(Date.parse(earlier) - 1).toISOString() : undefined;
  const later = sorted.find((t) => Date.parse(t) > current);
  return (
    <div className={`asof${value ? " active" : ""}`} role="group" aria-label="As of">
      <span className="control-label">As of</span>
      <button className="button small" disabled={!before} title="Step back before the latest recording shown" onClick={() => onChange(before)} data-testid="asof-back" aria-label="Step back in time">
        ◀
      </button>
      <input
        type="datetime-local"
        step={1}
        aria-label="As-of instant (UTC)"
        data-testid="asof-input"
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={() => draft !== toLocalInput(value) && onChange(fromLocalInput(draft))}
        onKeyDown={(e) => e.key === "Enter" && onChange(fromLocalInput(draft))}
      />
      <button className="button small" disabled={!value} title="Step forward" onClick={() => onChange(later && Date.parse(later) < Date.now() ? later : undefined)} aria-label="Step forward in time">
        ▶
      </button>
      <button className="button small" disabled={!value} onClick={() => onChange(undefined)} data-testid="asof-now">
        Now
      </button>
    </div>
  );
}

/** datetime-local shows UTC here (the API speaks UTC; the label says so). */
function toLocalInput(iso?: string): string {
  return iso ? new Date(iso).toISOString().slice(0, 19) : "";
}

function fromLocalInput(text: string): string | undefined {
  if (!text) return undefined;
  const parsed = Date.parse(`${text.length === 16 ? `${text}:00` : text}Z`);
  return Number.isNaN(parsed) ? undefined : new Date(parsed).toISOString();
}
