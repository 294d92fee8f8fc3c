import { useLayoutEffect, useRef, useState } from "react";
import { fitParts, highlightParts, type LabelPart } from "./highlight-parts";

/** Measures of a shortened label after the first, each shortening it by what still overflowed. */
const MAX_TRIES = 3;

/**
 * A label with the ranges the search matched in bold (UTF-16 offsets, end exclusive). `fit`: the label
 * sits in a box that cuts it at its end (a suggestion's one line); when it is longer than the box, it is
 * measured and shortened so that every match shows (fitParts), then measured again while its last match
 * still ends under the box's ellipsis; the whole label is in its tooltip and for screen readers.
 */
export function Highlighted({ text, ranges, fit = false }: { text: string; ranges: readonly { start: number; end: number }[]; fit?: boolean }) {
  const ref = useRef<HTMLSpanElement>(null);
  // The characters the box holds, measured for this text (null: it fits, or it is not measured yet), and how often it was measured again.
  const [room, setRoom] = useState<{ text: string; characters: number | null; tries: number }>({ text: "", characters: null, tries: 0 });
  const measured = room.text === text;
  useLayoutEffect(() => {
    const span = ref.current;
    const box = span?.parentElement;
    if (!fit || !span || !box) return;
    if (!measured) {
      // The whole label as drawn: the share of it the box shows, in characters.
      const overflows = box.scrollWidth > box.clientWidth + 1;
      setRoom({ text, characters: overflows ? Math.floor(([...text].length * box.clientWidth) / box.scrollWidth) : null, tries: 0 });
      return;
    }
    if (room.characters === null || room.tries >= MAX_TRIES) return;
    // Shortened: characters are not all as wide, nor are marks, so the last match may still end past the box's ellipsis; shorten by that much more.
    const marks = span.querySelectorAll("mark");
    const last = marks[marks.length - 1];
    if (!last) return;
    const perCharacter = box.scrollWidth / Math.max(1, [...(span.lastElementChild?.textContent ?? text)].length);
    const past = last.getBoundingClientRect().right - (box.getBoundingClientRect().right - 2 * perCharacter);
    if (past > 0) setRoom({ text, characters: room.characters - Math.ceil(past / perCharacter), tries: room.tries + 1 });
  }, [fit, measured, room, text]);
  const whole = highlightParts(text, ranges);
  const marked = (parts: readonly LabelPart[]) =>
    parts.map((part, i) => (part.hit ? <mark key={i}>{part.text}</mark> : <span key={i} className={part.elided ? "elided" : undefined}>{part.text}</span>));
  const fitted = fit && measured && room.characters !== null ? fitParts(whole, room.characters) : whole;
  if (!fitted.some((part) => part.elided)) return <span ref={ref}>{marked(whole)}</span>;
  // Shortened: what is read out is the whole label, what is seen its matches.
  return (
    <span ref={ref} title={text}>
      <span className="sr-only">{text}</span>
      <span aria-hidden="true">{marked(fitted)}</span>
    </span>
  );
}
