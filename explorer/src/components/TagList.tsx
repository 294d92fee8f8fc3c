import type { TagHoldingFieldsFragment } from "../api/generated";

/** Policy tags held, each with where it came from: assigned here, or inherited from which node, how far. */
export function TagList({ tags }: { tags: readonly TagHoldingFieldsFragment[] }) {
  if (!tags.length) return <span className="muted">none</span>;
  return (
    <ul className="tag-list">
      {tags.map((t) => (
        <li key={t.tag}>
          <span className={`tag${t.inherited ? " inherited" : ""}`}>{t.tag}</span>{" "}
          {t.inherited ? (
            <span className="muted">
              inherited ({t.level.toLowerCase()}, {t.depth} hop{t.depth === 1 ? "" : "s"}) from {t.origin.target.artifact?.originalName ?? `the dataset ${t.origin.target.namespace}/${t.origin.target.name}`}
              {t.origin.target.field ? `.${t.origin.target.field}` : ""}
            </span>
          ) : (
            <span className="muted">
              assigned here by {t.origin.assignedBy}
              {t.origin.reason ? ` — ${t.origin.reason}` : ""}
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}
