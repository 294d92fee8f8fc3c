import { MAX_NODES_CHOICES } from "../routes/graph-params";
import { AsOfControl } from "./AsOfControl";

export interface GraphSettings {
  direction: "UPSTREAM" | "DOWNSTREAM" | "BOTH";
  depth: number;
  stepBoundaryOnly: boolean;
  columns: boolean;
  asOf?: string;
  maxNodes: number;
}

/** Depth, direction, step boundaries, columns and the as-of instant of the neighbourhood. */
export function GraphToolbar({
  settings,
  asOfStops,
  onChange,
  info,
}: {
  settings: GraphSettings;
  asOfStops: readonly string[];
  onChange(changes: Partial<GraphSettings>): void;
  info?: React.ReactNode;
}) {
  return (
    <div className="toolbar" role="toolbar" aria-label="Graph settings">
      <div className="segmented" role="radiogroup" aria-label="Direction">
        {(["UPSTREAM", "BOTH", "DOWNSTREAM"] as const).map((d) => (
          <button key={d} role="radio" aria-checked={settings.direction === d} className={settings.direction === d ? "on" : ""} onClick={() => onChange({ direction: d })}>
            {d === "UPSTREAM" ? "← Upstream" : d === "DOWNSTREAM" ? "Downstream →" : "Both"}
          </button>
        ))}
      </div>
      <label className="control">
        <span className="control-label">Depth</span>
        <select value={settings.depth} onChange={(e) => onChange({ depth: Number(e.target.value) })} aria-label="Depth">
          {[1, 2, 3, 4, 5, 6, 8, 10].map((d) => (
            <option key={d} value={d}>
              {d}
            </option>
          ))}
        </select>
      </label>
      <label className="control" title="The most nodes to draw; the nearest are kept">
        <span className="control-label">Max</span>
        <select value={settings.maxNodes} onChange={(e) => onChange({ maxNodes: Number(e.target.value) })} aria-label="Most nodes">
          {MAX_NODES_CHOICES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
      <label className="control check" title="Fold composite runs into one node: only step-boundary derivations">
        <input type="checkbox" checked={settings.stepBoundaryOnly} onChange={(e) => onChange({ stepBoundaryOnly: e.target.checked })} /> Step boundaries
      </label>
      <label className="control check" title="Show dataset columns and column lineage">
        <input type="checkbox" data-testid="columns-toggle" checked={settings.columns} onChange={(e) => onChange({ columns: e.target.checked })} /> Columns
      </label>
      <AsOfControl value={settings.asOf} stops={asOfStops} onChange={(asOf) => onChange({ asOf })} />
      <div className="toolbar-info">{info}</div>
    </div>
  );
}
