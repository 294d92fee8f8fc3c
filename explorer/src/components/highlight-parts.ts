/** A piece of a highlighted label: matched (`hit`), plain, or an elision (`…`) standing for plain text left out. */
export interface LabelPart {
  text: string;
  hit: boolean;
  elided?: boolean;
}

/** The label cut at the ranges the search matched (UTF-16 offsets, end exclusive; overlapping or out of order ones as well). */
export function highlightParts(text: string, ranges: readonly { start: number; end: number }[]): LabelPart[] {
  const parts: LabelPart[] = [];
  let at = 0;
  for (const range of [...ranges].sort((a, b) => a.start - b.start)) {
    const start = Math.max(at, Math.min(range.start, text.length));
    const end = Math.max(start, Math.min(range.end, text.length));
    if (start > at) parts.push({ text: text.slice(at, start), hit: false });
    if (end > start) parts.push({ text: text.slice(start, end), hit: true });
    at = end;
  }
  if (at < text.length) parts.push({ text: text.slice(at), hit: false });
  return parts;
}

/** Characters of plain text kept before a match, after a leading elision: enough to read which segment it is in. */
const LEAD_KEPT = 6;
/** Characters of plain text kept between two matches, half on each side of the elision. */
const BETWEEN_KEPT = 8;
/** Characters after the last match that should still show (the rest the box cuts at its end). */
const TAIL_SHOWN = 4;

/**
 * A label that takes more than `room` characters, shortened so that every match shows: long names are
 * mostly paths and dotted column names, and a match of several words (`out_3 model 13` in
 * `…analytics.model_13.out_3`) may lie anywhere in them, while the box cuts a label at its end. Plain
 * text before the first match keeps its end, plain text between two matches its two ends, each with an
 * elision for what is left out, the longest shortened first and only as much as needed; the text after
 * the last match is left to the box to cut. Matched text is never shortened: a label whose matches
 * alone do not fit is returned as it is.
 */
export function fitParts(parts: readonly LabelPart[], room: number): LabelPart[] {
  const lastHit = parts.map((part) => part.hit).lastIndexOf(true);
  if (lastHit < 0) return [...parts];
  const length = (part: LabelPart) => [...part.text].length;
  const trailing = parts.slice(lastHit + 1).reduce((sum, part) => sum + length(part), 0);
  const shown = parts.slice(0, lastHit + 1).reduce((sum, part) => sum + length(part), 0) + Math.min(trailing, TAIL_SHOWN);
  let excess = shown - room;
  if (excess <= 0) return [...parts];
  // Each part as it is shown: itself, or its ends around an elision.
  const fitted: LabelPart[][] = parts.map((part) => [part]);
  // The plain parts before the last match, longest first: what each could give up, keeping its ends and an elision.
  const shrinkable = parts
    .map((part, index) => ({ index, kept: index === 0 ? LEAD_KEPT : BETWEEN_KEPT }))
    .filter(({ index, kept }) => index < lastHit && !parts[index].hit && length(parts[index]) > kept + 1)
    .sort((a, b) => length(parts[b.index]) - length(parts[a.index]));
  for (const { index, kept } of shrinkable) {
    if (excess <= 0) break;
    const points = [...parts[index].text];
    // Keep as much as the room allows, never less than `kept`; the elision takes one character.
    const keep = Math.max(kept, points.length - excess - 1);
    if (keep + 1 >= points.length) continue;
    excess -= points.length - keep - 1;
    const elision: LabelPart = { text: "…", hit: false, elided: true };
    const head = index === 0 ? 0 : Math.floor(keep / 2);
    const headPart = head > 0 ? [{ text: points.slice(0, head).join(""), hit: false }] : [];
    fitted[index] = [...headPart, elision, { text: points.slice(points.length - (keep - head)).join(""), hit: false }];
  }
  return fitted.flat();
}
