import { Handle, type NodeProps, Position } from "@xyflow/react";
import { memo } from "react";
import { displayName } from "../graph/display-name";

export interface PipelineNodeData extends Record<string, unknown> {
  label: string;
  sub?: string;
  execution: boolean;
  status?: string;
  appearing: boolean;
  pipelineInput: boolean;
}

/** A node of a macro or micro graph: a step or run (execution) or a role or artifact (data). */
export const PipelineNode = memo(function PipelineNode({ data }: NodeProps & { data: PipelineNodeData }) {
  return (
    <div className={`box ${data.execution ? "run" : "artifact"}${data.appearing ? " fresh" : ""}${data.pipelineInput ? " input" : ""}`} data-testid="pipeline-node" title={data.label}>
      <Handle type="target" position={Position.Left} />
      {data.execution && <span className={`run-dot status-${data.status ?? "completed"}`} aria-hidden="true" />}
      <div className="box-main">
        {/* An artifact's long path from its end, as on the neighbourhood's boxes; a step's name as it is. */}
        <span className="box-title">{data.execution ? data.label : displayName(data.label)}</span>
        {data.sub && <span className="box-type">{data.sub}</span>}
      </div>
      <Handle type="source" position={Position.Right} />
    </div>
  );
});
