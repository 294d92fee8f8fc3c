/** Policy-tag badges; an inherited tag is outlined (its origin is in the details panel). */
export function TagBadges({ tags, max = 3 }: { tags: readonly { tag: string; inherited: boolean }[]; max?: number }) {
  if (!tags.length) return null;
  const shown = tags.slice(0, max);
  return (
    <span className="tags">
      {shown.map((t) => (
        <span key={t.tag} className={`tag${t.inherited ? " inherited" : ""}`} title={t.inherited ? `${t.tag}, inherited` : `${t.tag}, assigned here`}>
          {t.inherited ? "↳" : ""}
          {t.tag}
        </span>
      ))}
      {tags.length > max && <span className="tag more">+{tags.length - max}</span>}
    </span>
  );
}
