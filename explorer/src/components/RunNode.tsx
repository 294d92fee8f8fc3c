import { Handle, type NodeProps, Position } from "@xyflow/react";
import { memo } from "react";
import type { BoxData } from "../graph/flow-elements";
import { Expander } from "./Expander";

/** A run: a small pill between the artifacts it used and made, coloured by status. */
export const RunNode = memo(function RunNode({ data, selected }: NodeProps & { data: BoxData }) {
  const { node } = data;
  const status = node.execution?.status.toLowerCase() ?? "unknown";
  return (
    <div
      className={`box run status-border-${status}${selected ? " selected" : ""}${data.isRoot ? " root" : ""}${data.dim ? " dim" : ""}${data.lit ? " lit" : ""}${data.fresh ? " fresh" : ""}`}
      data-node-id={node.id}
      data-testid="graph-node"
      title={`${node.label} · ${status}`}
    >
      <Handle type="target" position={Position.Left} />
      <Expander nodeId={node.id} side="UPSTREAM" hidden={node.hiddenUpstream} expanded={data.expandedUp} />
      <span className={`run-dot status-${status}`} aria-hidden="true" />
      <span className="box-title">{node.execution?.operation.name ?? node.label}</span>
      {node.execution?.step != null && <span className="run-step">#{node.execution.step}</span>}
      <Expander nodeId={node.id} side="DOWNSTREAM" hidden={node.hiddenDownstream} expanded={data.expandedDown} />
      <Handle type="source" position={Position.Right} />
    </div>
  );
});
