// The graph-views room's one door: pipelines drawn as graphs (the macro and micro graph of a named
// pipeline or of an OpenLineage job), the column rules and ordering that place their nodes, and the
// box layout that gives any such layered graph coordinates (also used by the lineage graphs).
export { GraphViews, type GraphViewOptions } from "./graph-views";
export * from "./layered-graph";
export { isBackwardEdge } from "./column-rules";
export { orderWithinColumns } from "./column-order";
export { type Box, type BoxInput, type BoxLayout, DAGRE_LAYOUT_LIMIT, layOutBoxes, type Point, type RouteInput } from "./box-layout";
export { DEFAULT_JOB_RUNS, type JobName, MAX_JOB_RUNS } from "./job-steps";
