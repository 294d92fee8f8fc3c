/** A run's status as a coloured badge. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`status status-${status.toLowerCase()}`}>{status.toLowerCase()}</span>;
}
