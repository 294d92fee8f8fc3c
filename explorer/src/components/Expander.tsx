import type { Side } from "../graph/graph-model";
import { useGraphActions } from "../graph/graph-actions";

/** The "+N" on one side of a node: expands what it hides, or collapses what an expansion showed. */
export function Expander({ nodeId, side, hidden, expanded }: { nodeId: string; side: Side; hidden: number; expanded: boolean }) {
  const actions = useGraphActions();
  if (!expanded && hidden <= 0) return null;
  const where = side === "UPSTREAM" ? "upstream" : "downstream";
  const label = expanded && hidden <= 0 ? `Collapse ${where}` : `Show ${hidden} more ${where}`;
  return (
    <button
      className={`expander ${side === "UPSTREAM" ? "left" : "right"}${expanded && hidden <= 0 ? " expanded" : ""} nodrag nopan`}
      data-testid={`expand-${where}`}
      aria-label={label}
      title={expanded && hidden > 0 ? `${label} (Shift+click collapses)` : label}
      onClick={(event) => {
        event.stopPropagation();
        if (expanded && (hidden <= 0 || event.shiftKey)) actions.collapse(nodeId, side);
        else actions.expand(nodeId, side);
      }}
    >
      {expanded && hidden <= 0 ? "−" : `+${hidden}`}
    </button>
  );
}
