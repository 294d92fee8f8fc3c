/** The graph view's settings as they stand in the URL (so a view can be shared), and back. */
import type { GraphSettings } from "../components/GraphToolbar";
import type { Side } from "../graph/graph-model";

export interface GraphParams extends GraphSettings {
  roots: string[];
  selected?: string;
  pathFrom?: string;
  pathTo?: string;
  /** Expansions to replay: node id and side, in the order they were made. */
  open: { nodeId: string; side: Side }[];
}

/** How many nodes a neighbourhood may bring at most (the server keeps the nearest). */
export const MAX_NODES_CHOICES = [100, 200, 500, 1000, 2000];
export const DEFAULT_MAX_NODES = 200;

export function graphParamsOf(params: URLSearchParams): GraphParams {
  const direction = params.get("dir");
  const depth = Number(params.get("depth") ?? 1);
  const max = Number(params.get("max") ?? DEFAULT_MAX_NODES);
  return {
    roots: (params.get("root") ?? "").split(",").filter(Boolean),
    direction: direction === "UPSTREAM" || direction === "DOWNSTREAM" ? direction : "BOTH",
    depth: Number.isInteger(depth) && depth >= 1 && depth <= 10 ? depth : 1,
    maxNodes: MAX_NODES_CHOICES.includes(max) ? max : DEFAULT_MAX_NODES,
    stepBoundaryOnly: params.get("steps") === "1",
    columns: params.get("cols") === "1",
    asOf: params.get("asOf") ?? undefined,
    selected: params.get("sel") ?? undefined,
    pathFrom: params.get("from") ?? undefined,
    pathTo: params.get("to") ?? undefined,
    open: (params.get("open") ?? "")
      .split(" ")
      .filter(Boolean)
      .map((item) => ({ nodeId: item.slice(0, -2), side: item.endsWith("~U") ? ("UPSTREAM" as const) : ("DOWNSTREAM" as const) })),
  };
}

export function openParamOf(open: readonly { nodeId: string; side: Side }[]): string | undefined {
  return open.length ? open.map((o) => `${o.nodeId}~${o.side === "UPSTREAM" ? "U" : "D"}`).join(" ") : undefined;
}
