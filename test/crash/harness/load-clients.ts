import { randomUUID } from "node:crypto";
import { drafts, stepsOf } from "../../support/composite-fixtures";
import { RECORD_COMPOSITE } from "../../support/composites";
import { dataset, runEvent } from "../../support/openlineage";
import { RECORD_EXECUTION } from "../../support/recording";

/** A mutation whose client got a success answer: it must be in the store after any crash. */
export type Acknowledged =
  | { kind: "execution"; runId: string; outputIds: string[]; edgeCount: number }
  | { kind: "composite"; runIds: string[]; outputIds: string[]; edgeCount: number }
  | { kind: "openlineage"; runId: string; events: number; status: string };

export interface LoadFigures {
  attempts: number;
  acknowledged: Acknowledged[];
  /** Requests that failed on the network (the server was down or got killed mid-request). */
  transportFailures: number;
  /** Answers that were errors (typed or not), by code. */
  errorAnswers: Record<string, number>;
}

/** Where the clients send requests; null while the server is down. */
export interface Target {
  url(): string | null;
}

const TIMEOUT_MS = 20_000;

/**
 * `clients` concurrent loops, each recording what a pipeline would with content of its own, until
 * stop() is called. Each loop sends one request at a time and remembers every success answer.
 */
export class LoadClients {
  private running = false;
  private paused: Promise<void> | null = null;
  private resume: (() => void) | null = null;
  private inFlight = 0;
  private idle: (() => void) | null = null;
  private loops: Promise<void>[] = [];
  readonly figures: LoadFigures = { attempts: 0, acknowledged: [], transportFailures: 0, errorAnswers: {} };

  constructor(
    private readonly target: Target,
    private readonly clients: number,
    private readonly label: string,
  ) {}

  start(): void {
    this.running = true;
    this.loops = Array.from({ length: this.clients }, (_, c) => this.loop(c));
  }

  /** Stops sending and waits for every in-flight request to settle. */
  async pause(): Promise<void> {
    if (!this.paused) this.paused = new Promise((resolve) => (this.resume = resolve));
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
  }

  unpause(): void {
    const resume = this.resume;
    this.paused = null;
    this.resume = null;
    resume?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unpause();
    await Promise.all(this.loops);
  }

  /**
   * A client records its pipeline's source step once (until acknowledged), then loops: three derived
   * steps (each with edges: most of what a kill can cut in half), a composite run (PERSIST and DISCARD
   * in turn) and an OpenLineage batch of one run's three events.
   */
  private async loop(client: number): Promise<void> {
    let raw: { name: string; id: string }[] | null = null;
    for (let attempt = 0; !raw && this.running; attempt++) {
      const source = await this.send(RECORD_EXECUTION, {
        input: { operation: "source", operationVersion: "1", pipeline: `crash-${client}`, step: 1, inputs: [], outputs: [{ role: "raw", artifacts: drafts(`${this.label}-c${client}-${attempt}`, ["A0.csv", "A1.csv", "B0.csv", "B1.csv"]) }] },
      });
      raw = this.acknowledgeExecution(source?.recordExecution);
    }
    if (!raw) return;
    const ids = (name: string) => raw!.find((o) => o.name === name)!.id;
    for (let i = 0; this.running; i++) {
      const label = `${this.label}-c${client}-${i}`;
      switch (i % 5) {
        case 3: {
          const answer = (
            await this.send(RECORD_COMPOSITE, {
              input: {
                composite: i % 10 === 3 ? "crash_persist" : "crash_discard",
                compositeVersion: "1",
                inputs: [
                  { role: "a", artifactIds: [ids("A0.csv"), ids("A1.csv")] },
                  { role: "b", artifactIds: [ids("B0.csv"), ids("B1.csv")] },
                ],
                steps: stepsOf(label),
              },
            })
          )?.recordCompositeExecution;
          if (answer?.__typename === "RecordCompositeExecutionPayload") {
            this.figures.acknowledged.push({
              kind: "composite",
              runIds: [answer.execution.runId, ...answer.steps.map((s: { runId: string }) => s.runId)],
              outputIds: answer.execution.outputs.map((o: { artifact: { id: string } }) => o.artifact.id),
              edgeCount: answer.edgeCount,
            });
          } else if (answer) this.count(answer.code ?? answer.__typename);
          break;
        }
        case 4:
          await this.openLineageBatch(label);
          break;
        default:
          this.acknowledgeExecution(
            (await this.send(RECORD_EXECUTION, { input: { operation: "clean", operationVersion: "1", pipeline: `crash-${client}`, step: 2, inputs: [{ role: "data", artifactIds: [ids("A0.csv"), ids("A1.csv")] }], outputs: [{ role: "cleaned", artifacts: drafts(label, ["A0_clean.csv", "A1_clean.csv"]) }] } }))?.recordExecution,
          );
      }
    }
  }

  private async openLineageBatch(label: string): Promise<void> {
    const runId = randomUUID();
    const job = { namespace: "crash", name: label.replace(/-\d+$/, "") };
    const events = [
      runEvent({ runId, eventType: "START", eventTime: "2026-03-11T02:00:00.000Z", job, inputs: [dataset("crash", `${label}/in`)] }),
      runEvent({ runId, eventType: "RUNNING", eventTime: "2026-03-11T02:01:00.000Z", job, inputs: [dataset("crash", `${label}/in`)], outputs: [dataset("crash", `${label}/out`)] }),
      runEvent({ runId, eventType: "COMPLETE", eventTime: "2026-03-11T02:02:00.000Z", job, outputs: [dataset("crash", `${label}/out`), dataset("crash", `${label}/summary`)] }),
    ];
    const answer = await this.post("/api/v1/lineage/batch", JSON.stringify(events));
    if (!answer) return;
    if (answer.status !== 200) {
      this.count(`HTTP ${answer.status}`);
      return;
    }
    const results = (answer.json as { results: { status: string; runId?: string; executionStatus?: string }[] }).results;
    const stored = results.filter((r) => r.status === "STORED");
    if (stored.length !== events.length) this.count(`OpenLineage ${results.map((r) => r.status).join("/")}`);
    if (stored.length > 0) this.figures.acknowledged.push({ kind: "openlineage", runId: `run_${runId}`, events: stored.length, status: stored[stored.length - 1].executionStatus! });
  }

  private acknowledgeExecution(answer: any): { name: string; id: string }[] | null {
    if (!answer) return null;
    if (answer.__typename !== "RecordExecutionPayload") {
      this.count(answer.code ?? answer.__typename);
      return null;
    }
    const outputs = answer.execution.outputs.map((o: { artifact: { id: string; originalName: string } }) => ({ name: o.artifact.originalName.replace(/^.*\//, ""), id: o.artifact.id }));
    this.figures.acknowledged.push({ kind: "execution", runId: answer.execution.runId, outputIds: outputs.map((o: { id: string }) => o.id), edgeCount: answer.edgeCount });
    return outputs;
  }

  private count(code: string): void {
    this.figures.errorAnswers[code] = (this.figures.errorAnswers[code] ?? 0) + 1;
  }

  /** One GraphQL request; the data when it answered, null when it failed (counted). */
  private async send(query: string, variables: Record<string, unknown>): Promise<Record<string, any> | null> {
    const answer = await this.post("/graphql", JSON.stringify({ query, variables }));
    if (!answer) return null;
    const body = answer.json as { data?: Record<string, any> | null; errors?: { extensions?: { code?: string } }[] } | undefined;
    if (body?.errors?.length) {
      this.count(String(body.errors[0].extensions?.code ?? `HTTP ${answer.status}`));
      return null;
    }
    if (answer.status !== 200 || !body?.data) {
      this.count(`HTTP ${answer.status}`);
      return null;
    }
    return body.data;
  }

  /** POSTs once the server is up (waiting while it is down or the run is paused); null on a transport failure. */
  private async post(path: string, body: string): Promise<{ status: number; json: unknown } | null> {
    for (;;) {
      if (this.paused) await this.paused;
      const url = this.target.url();
      if (url) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    this.figures.attempts += 1;
    this.inFlight += 1;
    try {
      const response = await fetch(`${this.target.url()}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
      const text = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: response.status, json };
    } catch {
      this.figures.transportFailures += 1;
      await new Promise((resolve) => setTimeout(resolve, 25));
      return null;
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0 && this.idle) {
        const idle = this.idle;
        this.idle = null;
        idle();
      }
    }
  }
}
