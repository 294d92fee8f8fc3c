import fs from "node:fs";
import type { TestApp } from "../../support/test-app";

/** A case whose answer broke a rule: what was sent (shortened), what came back, which rule. */
export interface FuzzFailure {
  kind: string;
  rule: string;
  request: string;
  answer: string;
}

/** Every table a recording may write (the audit trail and tokens are left out: refused attempts are audited on purpose). */
const TABLES = [
  "Operation",
  "OperationRole",
  "Execution",
  "Artifact",
  "ExecutionArtifact",
  "ProvenanceEdge",
  "PipelineStep",
  "PipelineFlow",
  "CompositeDefinition",
  "CompositeRun",
  "CompositeStepRun",
  "OpenLineageEvent",
  "OpenLineageRun",
  "DatasetVersionUse",
  "ColumnEdge",
  "DatasetColumn",
  "FeedEvent",
];
const COUNTS_SQL = `SELECT ${TABLES.map((t) => `(SELECT COUNT(*) FROM "${t}") AS "${t}"`).join(", ")}`;

/** The types of a mutation's answer that mean it wrote (every other member of its union is a typed error). */
const SUCCESS_TYPES = new Set(["RecordExecutionPayload", "Operation", "CompositeDefinition", "RecordCompositeExecutionPayload", "IngestOpenLineageEventsPayload"]);

const shorten = (text: string, max = 600) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);

/**
 * Sends fuzzed requests in-process and checks what issue 13 asks of every answer: success or a typed
 * error (a stable extensions.code or union member code, never INTERNAL_SERVER_ERROR), never an HTTP
 * 5xx, and table counts that change only when the answer says something was written.
 */
export class CaseChecker {
  readonly failures: FuzzFailure[] = [];
  readonly tried: Record<string, number> = {};
  readonly outcomes: Record<string, number> = {};
  /** Ids of artifacts recorded so far: later cases use them as inputs. */
  readonly artifactIds: string[] = [];

  constructor(private readonly t: TestApp) {}

  private async counts(): Promise<Record<string, number>> {
    const [row] = await this.t.app.database.prisma.$queryRawUnsafe<Record<string, number | bigint>[]>(COUNTS_SQL);
    return Object.fromEntries(TABLES.map((table) => [table, Number(row[table] ?? 0)]));
  }

  /** The tables whose counts differ, as "Table before → after", or null. */
  private static changed(before: Record<string, number>, after: Record<string, number>): string | null {
    const moved = TABLES.filter((table) => before[table] !== after[table]).map((table) => `${table} ${before[table]} → ${after[table]}`);
    return moved.length > 0 ? moved.join(", ") : null;
  }

  private fail(kind: string, rule: string, request: string, answer: string): void {
    this.failures.push({ kind, rule, request: shorten(request), answer: shorten(answer) });
    // The whole case, to replay it: FUZZ_FAILURES=<file> appends one JSON line per failure.
    if (process.env.FUZZ_FAILURES) fs.appendFileSync(process.env.FUZZ_FAILURES, `${JSON.stringify({ kind, rule, request, answer })}\n`);
  }

  private outcome(kind: string, what: string): void {
    const key = `${kind} ${what}`;
    this.outcomes[key] = (this.outcomes[key] ?? 0) + 1;
  }

  /** One GraphQL mutation (`field` is its root field) with these variables. */
  async graphql(kind: string, field: string, query: string, variables: Record<string, unknown>): Promise<any> {
    this.tried[kind] = (this.tried[kind] ?? 0) + 1;
    const request = JSON.stringify({ query, variables });
    const before = await this.counts();
    const response = await this.t.app.yoga.fetch("http://provgraph.test/graphql", { method: "POST", headers: { "content-type": "application/json" }, body: request });
    const text = await response.text();
    const after = await this.counts();
    if (response.status >= 500) return this.fail(kind, `HTTP ${response.status}`, request, text);
    let body: { data?: Record<string, any> | null; errors?: { extensions?: { code?: unknown } }[] };
    try {
      body = JSON.parse(text);
    } catch {
      return this.fail(kind, "answer is not JSON", request, text);
    }
    let wrote = false;
    if (body.errors?.length) {
      const codes = body.errors.map((e) => e.extensions?.code);
      const untyped = codes.filter((code) => typeof code !== "string" || code === "" || code === "INTERNAL_SERVER_ERROR");
      if (untyped.length > 0) return this.fail(kind, `error without a typed code (${untyped.map(String).join(", ")})`, request, text);
      this.outcome(kind, String(codes[0]));
    } else {
      const answer = body.data?.[field];
      if (!answer || typeof answer.__typename !== "string") return this.fail(kind, "no answer and no error", request, text);
      if (SUCCESS_TYPES.has(answer.__typename)) {
        wrote = answer.__typename !== "IngestOpenLineageEventsPayload" || answer.stored > 0;
        this.outcome(kind, answer.__typename === "IngestOpenLineageEventsPayload" ? `stored ${answer.stored > 0 ? "some" : "none"}` : "OK");
        for (const results of answer.refused > 0 ? [answer.results] : []) {
          for (const r of results) if (r.status === "REFUSED" && (typeof r.error?.code !== "string" || r.error.code === "INTERNAL_SERVER_ERROR")) return this.fail(kind, "refused event without a typed code", request, text);
        }
        this.collectArtifacts(answer);
      } else if (typeof answer.code !== "string" || answer.code === "" || answer.code === "INTERNAL_SERVER_ERROR") {
        return this.fail(kind, `result ${answer.__typename} without a typed code`, request, text);
      } else this.outcome(kind, answer.code);
    }
    const moved = CaseChecker.changed(before, after);
    if (!wrote && moved) this.fail(kind, `a failed mutation changed table counts: ${moved}`, request, text);
    return body.data?.[field];
  }

  /** One POST to an OpenLineage route. */
  async lineage(kind: string, route: string, body: string | Uint8Array, contentType: string): Promise<void> {
    this.tried[kind] = (this.tried[kind] ?? 0) + 1;
    const request = typeof body === "string" ? `${route} ${body}` : `${route} <${body.length} bytes>`;
    const before = await this.counts();
    const response = await this.t.app.yoga.fetch(`http://provgraph.test${route}`, { method: "POST", headers: { "content-type": contentType }, body });
    const text = await response.text();
    const after = await this.counts();
    if (response.status >= 500) return this.fail(kind, `HTTP ${response.status}`, request, text);
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      return this.fail(kind, `HTTP ${response.status} answer is not JSON`, request, text);
    }
    let wrote: boolean;
    if (response.status === 200 || response.status === 201 || response.status === 207) {
      const results: any[] = json.results ?? [json];
      for (const r of results) if (r.status === "REFUSED" && (typeof r.error?.code !== "string" || r.error.code === "INTERNAL_SERVER_ERROR")) return this.fail(kind, "refused event without a typed code", request, text);
      wrote = results.some((r) => r.status === "STORED");
      this.outcome(kind, `HTTP ${response.status}`);
    } else {
      if (typeof json.error?.code !== "string" || json.error.code === "INTERNAL_SERVER_ERROR") return this.fail(kind, `HTTP ${response.status} without a typed code`, request, text);
      wrote = false;
      this.outcome(kind, json.error.code);
    }
    const moved = CaseChecker.changed(before, after);
    if (!wrote && moved) this.fail(kind, `a refused request changed table counts: ${moved}`, request, text);
  }

  private collectArtifacts(answer: any): void {
    const links = [...(answer.execution?.outputs ?? []), ...(answer.execution?.inputs ?? [])];
    for (const link of links) if (link?.artifact?.id && this.artifactIds.length < 500) this.artifactIds.push(link.artifact.id);
  }

  total(): number {
    return Object.values(this.tried).reduce((a, b) => a + b, 0);
  }
}
