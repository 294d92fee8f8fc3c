import { Handle, type NodeProps, Position } from "@xyflow/react";
import { memo } from "react";
import type { BoxData } from "../graph/flow-elements";
import { TagBadges } from "./TagBadges";

/** One column of a dataset version, drawn inside its dataset's box; column edges attach to it. */
export const ColumnNode = memo(function ColumnNode({ data, selected }: NodeProps & { data: BoxData }) {
  const { node } = data;
  const field = node.column?.field ?? node.label;
  return (
    <div className={`column-row${selected ? " selected" : ""}${data.dim ? " dim" : ""}${data.lit ? " lit" : ""}`} data-node-id={node.id} data-testid="column-node" title={field}>
      <Handle type="target" position={Position.Left} />
      <span className="column-field">{field}</span>
      {node.column?.type && <span className="column-type">{node.column.type}</span>}
      <TagBadges tags={node.column?.policyTags ?? []} max={2} />
      <Handle type="source" position={Position.Right} />
    </div>
  );
});
