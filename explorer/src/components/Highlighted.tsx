import { useLayoutEffect, useRef, useState } from "react";
import { fitParts, highlightParts, type LabelPart } from "./highlight-parts";

/**
 * A label with the ranges the search matched in bold (UTF-16 offsets, end exclusive). `fit`: the label
 * sits in a box that cuts it at its end (a suggestion's one line); when it is longer than the box, it is
 * measured once and shortened so that every match shows (fitParts), the whole label in its tooltip and
 * for screen readers.
 */
export function Highlighted({ text, ranges, fit = false }: { text: string; ranges: readonly { start: number; end: number }[]; fit?: boolean }) {
  const ref = useRef<HTMLSpanElement>(null);
  // The characters the box holds, measured for this text (null: it fits, or it is not measured yet).
  const [room, setRoom] = useState<{ text: string; characters: number | null }>({ text: "", characters: null });
  const measured = room.text === text;
  useLayoutEffect(() => {
    if (!fit || measured) return;
    const box = ref.current?.parentElement;
    const overflows = box !== null && box !== undefined && box.scrollWidth > box.clientWidth + 1;
    setRoom({ text, characters: overflows ? Math.floor(([...text].length * box.clientWidth) / box.scrollWidth) : null });
  }, [fit, measured, text]);
  const whole = highlightParts(text, ranges);
  const marked = (parts: readonly LabelPart[]) =>
    parts.map((part, i) => (part.hit ? <mark key={i}>{part.text}</mark> : <span key={i} className={part.elided ? "elided" : undefined}>{part.text}</span>));
  if (!fit || !measured || room.characters === null) return <span ref={ref}>{marked(whole)}</span>;
  // Shortened: what is read out is the whole label, what is seen its matches.
  return (
    <span ref={ref} title={text}>
      <span className="sr-only">{text}</span>
      <span aria-hidden="true">{marked(fitParts(whole, room.characters))}</span>
    </span>
  );
}
