import { Handle, type NodeProps, Position } from "@xyflow/react";
import { memo } from "react";
import type { BoxData } from "../graph/flow-elements";
import { TagBadges } from "./TagBadges";

/**
 * One column of a dataset version, drawn inside its dataset's box; column edges attach to it. Drawn without
 * that box (a graph rooted at a column holds columns only), it names its dataset above its field, since
 * two datasets' `amount` would otherwise look alike.
 */
export const ColumnNode = memo(function ColumnNode({ data, selected, parentId }: NodeProps & { data: BoxData }) {
  const { node } = data;
  const field = node.column?.field ?? node.label;
  const dataset = node.artifact?.dataset;
  const standalone = !parentId;
  const datasetName = dataset ? `${dataset.namespace}/${dataset.name}` : node.artifact?.id;
  const row = (
    <>
      <span className="column-field">{field}</span>
      {node.column?.type && <span className="column-type">{node.column.type}</span>}
      <TagBadges tags={node.column?.policyTags ?? []} max={2} />
    </>
  );
  return (
    <div
      className={`column-row${standalone ? " standalone" : ""}${selected ? " selected" : ""}${data.dim ? " dim" : ""}${data.lit ? " lit" : ""}${data.isRoot ? " root" : ""}`}
      data-node-id={node.id}
      data-testid="column-node"
      title={standalone && datasetName ? `${datasetName} · ${field}` : field}
    >
      <Handle type="target" position={Position.Left} />
      {standalone ? (
        <>
          <span className="column-dataset" data-testid="column-dataset">
            {datasetName}
            {dataset?.version ? ` · v ${dataset.version}` : ""}
          </span>
          <span className="column-line">{row}</span>
        </>
      ) : (
        row
      )}
      <Handle type="source" position={Position.Right} />
    </div>
  );
});
