import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { PoolStats } from "../db/client";
import type { RecordingKind, RecordingObserver } from "../services/recording";

/** Where the gauges read their values when Prometheus scrapes (nothing is polled in between). */
export interface MetricSources {
  feeds(): { live: number; replaying: number; offers: number; overflows: number; delivered: number };
  heavyWork(): { running: number; queued: number; admitted: number; refused: number; abandoned: number };
  database(): { statements: number; pools: Partial<Record<"writer" | "reader", PoolStats>> };
}

/** The OpenLineage result statuses counted. */
export type EventStatus = "STORED" | "DUPLICATE" | "REFUSED";

/** Request latency buckets (s): a lookup takes milliseconds, a big recording or closure seconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * provgraph's metrics (docs/operating/metrics.md), in a registry of their own (prom-client), so
 * several apps in one process (tests) never share counters. Counters are bumped where things happen;
 * gauges are read from their sources when scraped.
 */
export class ProvgraphMetrics implements RecordingObserver {
  readonly registry = new Registry();
  private readonly requests: Counter<"type" | "operation" | "outcome">;
  private readonly requestSeconds: Histogram<"type" | "operation" | "outcome">;
  private readonly recordings: Counter<"kind" | "outcome">;
  private readonly events: Counter<"status" | "code">;
  private readonly databaseUnavailable: Counter;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({ name: "provgraph_graphql_requests_total", help: "GraphQL requests over HTTP (and SSE), by operation type, root fields and outcome (OK or the first error's code)", labelNames: ["type", "operation", "outcome"], registers });
    this.requestSeconds = new Histogram({ name: "provgraph_graphql_request_duration_seconds", help: "Time from a GraphQL request's arrival to its result (subscriptions: to their start)", labelNames: ["type", "operation", "outcome"], buckets: LATENCY_BUCKETS, registers });
    this.recordings = new Counter({ name: "provgraph_recordings_total", help: "Recording requests (recordExecution, each item of recordExecutions, recordCompositeExecution) by outcome: RECORDED, REPLAYED or the refusal's code", labelNames: ["kind", "outcome"], registers });
    this.events = new Counter({ name: "provgraph_openlineage_events_total", help: "OpenLineage events received (every route and the mutation) by status, and the code of refused ones", labelNames: ["status", "code"], registers });
    this.databaseUnavailable = new Counter({ name: "provgraph_database_unavailable_total", help: "Requests answered DATABASE_UNAVAILABLE: the database could not be reached or used", registers });
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    gauge("provgraph_feed_subscribers", "Subscriptions open on this instance (live, and replaying what they missed)", () => sources.feeds().live + sources.feeds().replaying);
    gauge("provgraph_feed_deliveries_total", "Feed entries offered to subscribers, one per subscriber and entry, since start", () => sources.feeds().offers);
    gauge("provgraph_feed_delivered_sequence", "The last feed sequence offered to every live subscriber", () => sources.feeds().delivered);
    gauge("provgraph_feed_overflows_total", "Subscriptions closed with FEED_OVERFLOW (too far behind) since start", () => sources.feeds().overflows);
    gauge("provgraph_heavy_work_running", "Heavy requests running now (at most HEAVY_CONCURRENCY)", () => sources.heavyWork().running);
    gauge("provgraph_heavy_work_queued", "Heavy requests waiting for their turn: the admission queue's depth (at most HEAVY_QUEUE_DEPTH)", () => sources.heavyWork().queued);
    gauge("provgraph_heavy_work_admitted_total", "Heavy requests admitted since start", () => sources.heavyWork().admitted);
    gauge("provgraph_heavy_work_refused_total", "Heavy requests refused with OVERLOADED since start", () => sources.heavyWork().refused);
    gauge("provgraph_heavy_work_abandoned_total", "Heavy requests whose client went away while they waited for their turn, since start", () => sources.heavyWork().abandoned);
    gauge("provgraph_database_statements_total", "SQL statements sent to the database since start (queries, writes, BEGIN/COMMIT)", () => sources.database().statements);
    new Gauge({
      name: "provgraph_database_pool_connections",
      help: "PostgreSQL connections by pool (writer, reader) and state (open, idle, waiting: callers waiting for one)",
      labelNames: ["pool", "state"],
      registers,
      collect() {
        this.reset();
        for (const [pool, stats] of Object.entries(sources.database().pools)) {
          this.set({ pool, state: "open" }, stats.total);
          this.set({ pool, state: "idle" }, stats.idle);
          this.set({ pool, state: "waiting" }, stats.waiting);
        }
      },
    });
  }

  /** One GraphQL request answered. */
  request(type: string, operation: string, outcome: string, seconds: number): void {
    this.requests.inc({ type, operation, outcome });
    this.requestSeconds.observe({ type, operation, outcome }, seconds);
    if (outcome === "DATABASE_UNAVAILABLE") this.databaseUnavailable.inc();
  }

  recording(kind: RecordingKind, outcome: string): void {
    this.recordings.inc({ kind, outcome });
  }

  /** The results of one OpenLineage ingestion (a request, a batch, a mutation). */
  openLineageResults(results: readonly { status: EventStatus; error?: { code: string } | null }[]): void {
    for (const result of results) this.events.inc({ status: result.status, code: result.status === "REFUSED" ? (result.error?.code ?? "REFUSED") : "" });
  }

  /** The exposition: Prometheus text format 0.0.4. */
  async text(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
