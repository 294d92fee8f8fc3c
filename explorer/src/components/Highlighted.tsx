/** A label with the ranges the search matched in bold (UTF-16 offsets, end exclusive). */
export function Highlighted({ text, ranges }: { text: string; ranges: readonly { start: number; end: number }[] }) {
  const parts: { text: string; hit: boolean }[] = [];
  let at = 0;
  for (const range of [...ranges].sort((a, b) => a.start - b.start)) {
    const start = Math.max(at, Math.min(range.start, text.length));
    const end = Math.max(start, Math.min(range.end, text.length));
    if (start > at) parts.push({ text: text.slice(at, start), hit: false });
    if (end > start) parts.push({ text: text.slice(start, end), hit: true });
    at = end;
  }
  if (at < text.length) parts.push({ text: text.slice(at), hit: false });
  return <>{parts.map((part, i) => (part.hit ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>))}</>;
}
