import type { GraphNode } from "../graph/graph-model";
import { hrefOf, navigate, updateParams } from "../routes/router";
import { ArtifactDetails } from "./ArtifactDetails";
import { RunDetails } from "./RunDetails";

/** The side panel of the selected node: what it is, where it came from, what can be done from it. */
export function DetailsPanel({ node, asOf, pathFrom, onClose }: { node: GraphNode; asOf?: string; pathFrom?: string; onClose(): void }) {
  const artifactId = node.kind === "COLUMN" ? node.artifact?.id : node.kind === "ARTIFACT" ? node.id : undefined;
  return (
    <aside className="details" aria-label="Details" data-testid="details-panel">
      <div className="details-head">
        <span className={`kind-pill kind-${node.kind.toLowerCase()}`}>{node.kind === "ARTIFACT" && node.artifact?.dataset ? "DATASET" : node.kind}</span>
        <h2 title={node.label}>{node.kind === "COLUMN" ? node.column?.field ?? node.label : node.label}</h2>
        <button className="icon-button" onClick={onClose} aria-label="Close details">
          ×
        </button>
      </div>
      <div className="details-actions">
        <button className="button small" onClick={() => navigate(hrefOf("/graph", { root: node.id, cols: node.kind === "COLUMN" || undefined }))} title="Make this node the root">
          Open here
        </button>
        <button className="button small" onClick={() => updateParams({ from: node.id, to: undefined })} title="Then shift+click another node, or choose “Path to here” on it">
          Path from here
        </button>
        {pathFrom && pathFrom !== node.id && (
          <button className="button small primary" onClick={() => updateParams({ to: node.id })} data-testid="path-to-here">
            Path to here
          </button>
        )}
      </div>
      {/* Focusable, so a keyboard can scroll what overflows. */}
      <div className="details-body" tabIndex={0}>
        {node.kind === "RUN" && node.execution ? (
          <RunDetails runId={node.execution.runId} />
        ) : artifactId ? (
          <ArtifactDetails artifactId={artifactId} field={node.kind === "COLUMN" ? node.column?.field : undefined} asOf={asOf} />
        ) : (
          <p className="muted">No details.</p>
        )}
      </div>
    </aside>
  );
}
