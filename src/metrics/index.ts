// The metrics room's one door: provgraph's Prometheus metrics (docs/operating/metrics.md), the
// request counter plugin and the GET /metrics route.
export { useMetricsRoute } from "./metrics-route";
export { type EventStatus, type MetricSources, ProvgraphMetrics } from "./provgraph-metrics";
export { operationLabel, useRequestMetrics } from "./request-metrics";
