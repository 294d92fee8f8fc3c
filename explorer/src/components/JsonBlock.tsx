/** Metadata or parameters as indented JSON; a redacted value says so instead. */
export function JsonBlock({ value, redacted }: { value: unknown; redacted?: boolean }) {
  if (redacted)
    return (
      <div className="redacted-value" data-testid="redacted">
        <span className="redacted-mark">redacted</span> your token has no clearance for a tag this value holds
      </div>
    );
  if (value === null || value === undefined) return <span className="muted">none</span>;
  return <pre className="json">{JSON.stringify(value, null, 2)}</pre>;
}
