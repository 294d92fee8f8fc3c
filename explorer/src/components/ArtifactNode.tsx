import { Handle, type NodeProps, Position } from "@xyflow/react";
import { memo } from "react";
import type { BoxData } from "../graph/flow-elements";
import { displayName } from "../graph/display-name";
import { useGraphActions } from "../graph/graph-actions";
import { Expander } from "./Expander";
import { TagBadges } from "./TagBadges";

/** An artifact or dataset version: name, type (or dataset), tag badges, "+N" on each side. */
export const ArtifactNode = memo(function ArtifactNode({ data, selected }: NodeProps & { data: BoxData }) {
  const { node } = data;
  const actions = useGraphActions();
  const dataset = node.artifact?.dataset;
  const redacted = (node.artifact?.redacted.length ?? 0) > 0;
  return (
    <div
      className={`box artifact${dataset ? " dataset" : ""}${selected ? " selected" : ""}${data.isRoot ? " root" : ""}${data.dim ? " dim" : ""}${data.lit ? " lit" : ""}${data.fresh ? " fresh" : ""}`}
      data-node-id={node.id}
      data-testid="graph-node"
    >
      <Handle type="target" position={Position.Left} />
      <Expander nodeId={node.id} side="UPSTREAM" hidden={node.hiddenUpstream} expanded={data.expandedUp} />
      <div className="box-head">
        <span className={`kind-icon ${dataset ? "kind-dataset" : "kind-artifact"}`} aria-hidden="true">{dataset ? "▦" : "◧"}</span>
        <span className="box-title" title={node.label}>
          {/* A dataset's namespace is on the line below too: a long name shows its end, as a path does. */}
          {displayName(node.label)}
        </span>
      </div>
      <div className="box-sub">
        <span className="box-type">{dataset ? `${dataset.namespace}${dataset.version ? ` · v ${dataset.version}` : ""}` : node.artifact?.artifactType}</span>
        <TagBadges tags={node.artifact?.policyTags ?? []} />
        {redacted && (
          <span className="redacted-mark" title="Some fields are redacted for your token">
            redacted
          </span>
        )}
        {dataset && data.columnCount === 0 && (
          <button
            className="link-button nodrag"
            data-testid="show-columns"
            onClick={(e) => {
              e.stopPropagation();
              actions.showColumns(node.id);
            }}
          >
            columns
          </button>
        )}
      </div>
      <Expander nodeId={node.id} side="DOWNSTREAM" hidden={node.hiddenDownstream} expanded={data.expandedDown} />
      <Handle type="source" position={Position.Right} />
    </div>
  );
});
