import { useEffect, useState } from "react";

/** Plays a pipeline step by step: first, previous, play/pause, next, last; the current stop is in the URL. */
export function Stepper({ steps, index, onChange }: { steps: readonly number[]; index: number; onChange(index: number): void }) {
  const [playing, setPlaying] = useState(false);
  useEffect(() => {
    if (!playing) return;
    if (index >= steps.length) return setPlaying(false);
    const timer = setTimeout(() => onChange(index + 1), 900);
    return () => clearTimeout(timer);
  }, [playing, index, steps.length, onChange]);
  const last = steps.length;
  return (
    <div className="stepper" role="group" aria-label="Step through the pipeline" data-testid="stepper">
      <button className="button small" onClick={() => onChange(0)} disabled={index === 0} aria-label="To the inputs">
        «
      </button>
      <button className="button small" onClick={() => onChange(index - 1)} disabled={index === 0} aria-label="Previous step" data-testid="step-back">
        ◀
      </button>
      <button className="button small" onClick={() => (index >= last ? (onChange(0), setPlaying(true)) : setPlaying(!playing))} aria-label={playing ? "Pause" : "Play"}>
        {playing ? "II" : "▷"}
      </button>
      <button className="button small" onClick={() => onChange(index + 1)} disabled={index >= last} aria-label="Next step" data-testid="step-next">
        ▶
      </button>
      <button className="button small" onClick={() => onChange(last)} disabled={index >= last} aria-label="To the last step">
        »
      </button>
      <span className="stepper-label" data-testid="step-label">
        {index === 0 ? "Inputs" : `Step ${steps[index - 1]}`} <span className="muted">({index} of {last})</span>
      </span>
      <input type="range" min={0} max={last} value={index} onChange={(e) => onChange(Number(e.target.value))} aria-label="Step" />
    </div>
  );
}
