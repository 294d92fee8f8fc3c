import type { ReadDatabase } from "../../src/db/client";
import { STOP_FUNCTION } from "../../src/db/statement-stop";
import { HEAVY_READS } from "../../src/services/heavy-reads/registered-reads";
import { type HeavyReadOutcome, runJob } from "../../src/services/heavy-reads/run-job";
import { hopEvent, ingest, latestVersionId } from "../support/compliance";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * The recursive walks of the heavy reads (a closure, a column's closure, impact, an evidence package)
 * are one SQLite statement each, which better-sqlite3 cannot interrupt: each calls the connection's
 * stop function on about one edge in 256 (statement-stop.ts), so that in a heavy-read thread it ends
 * when the read's client goes away or its budget runs out, and the thread is kept. Each read is run
 * here as a thread runs it (runJob, its statements stoppable), over a database that marks the client
 * gone as the walk's statement starts: the walk ends with REQUEST_ABORTED, whether it is read
 * directly or through Prisma, and without the mark it answers.
 */
describe("SQLite: the walks of the heavy reads end themselves", () => {
  let t: TestApp;
  const NS = "walks";
  const INPUTS = 300;
  let out: string;
  /** Each read's name and arguments, as the resolvers asked for them. */
  const asked = new Map<string, { name: string; args: unknown }>();

  const READS: Record<string, { query: string; id?: () => string }> = {
    "a closure": { query: `query($id: ID!) { lineage(artifactId: $id, direction: UPSTREAM) { nodeIds } }` },
    "a column's closure": { query: `query { columnLineage(namespace: "${NS}", name: "out", field: "all", direction: UPSTREAM) { nodes { field } } }` },
    "an artifact's impact": { query: `query($id: ID!) { impact(id: $id, direction: UPSTREAM) { totals { kind count } } }` },
    "a column's impact": { query: `query($id: ID!) { impact(id: $id, direction: UPSTREAM) { totals { kind count } } }`, id: () => `col:${out}:all` },
    "an evidence package": { query: `query($id: ID!) { evidencePackage(artifactId: $id) { nodes { __typename } } }` },
  };

  beforeAll(async () => {
    t = await createTestApp();
    // 300 inputs into one output: 300 artifact edges into it and 300 column edges into its one column (ids 1–300, 256 among them).
    const inputs = Array.from({ length: INPUTS }, (_, i) => ({ name: `in_${i}`, fields: ["f"] }));
    await ingest(t, hopEvent(NS, "fan_in", inputs, { name: "out", fields: ["all"] }, inputs.map(({ name }) => ["all", name, "f", "DIRECT"] as const)));
    out = await latestVersionId(t, NS, "out");
    const heavyReads = t.app.services.heavyReads;
    const run = heavyReads.run;
    for (const [name, read] of Object.entries(READS)) {
      heavyReads.run = ((readName: string, args: unknown, budget: unknown) => (asked.set(name, { name: readName, args }), run.call(heavyReads, readName as never, args as never, budget as never))) as typeof run;
      const answered = await t.gql(read.query, { id: read.id?.() ?? out });
      heavyReads.run = run;
      if (answered.errors) throw new Error(JSON.stringify(answered.errors));
    }
  }, 60_000);
  afterAll(() => t.close());

  /**
   * The read run as a thread runs it, over the app's database; with `mark`, its client is gone from
   * when a statement calling the stop function starts. `walks`: those statements, and whether each failed.
   */
  async function runAsThread(name: string, mark: boolean): Promise<{ outcome: HeavyReadOutcome; walks: boolean[] }> {
    const { name: readName, args } = asked.get(name)!;
    const gone = new Int32Array(new SharedArrayBuffer(4));
    const walks: boolean[] = [];
    const app = t.app.database;
    const watched = async <T>(sql: string, read: () => Promise<T>): Promise<T> => {
      if (!sql.includes(STOP_FUNCTION)) return read();
      if (mark) Atomics.store(gone, 0, 1);
      const at = walks.push(false) - 1;
      try {
        return await read();
      } catch (error) {
        walks[at] = true;
        throw error;
      }
    };
    const reader = new Proxy(app.reader, {
      get(target, key) {
        const value = Reflect.get(target, key);
        if (key === "$queryRawUnsafe") return (sql: string, ...params: unknown[]) => watched(sql, () => target.$queryRawUnsafe(sql, ...params));
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const database: ReadDatabase = {
      provider: app.provider,
      reader,
      statementCount: () => app.statementCount(),
      readRows: (sql, params) => watched(sql, () => app.readRows(sql, params)),
      // A stream's statement runs as its rows are read: a failure then is the walk's too.
      readRowStream: (sql, params) =>
        watched(sql, async () => {
          const stream = await app.readRowStream(sql, params);
          if (!sql.includes(STOP_FUNCTION)) return stream;
          const at = walks.length - 1;
          return {
            ...stream,
            rows: (function* () {
              try {
                yield* stream.rows;
              } catch (error) {
                walks[at] = true;
                throw error;
              }
            })(),
          };
        }),
    };
    const outcome = await runJob(HEAVY_READS, { database, readers: new Map(), maxResultNodes: 100_000, stoppableStatements: true }, { name: readName, args, deadline: Number.POSITIVE_INFINITY, budgetMs: 30_000, gone });
    return { outcome, walks };
  }

  test.each(Object.keys(READS))("%s: its walk ends when its client goes away, and answers otherwise", async (name) => {
    const answered = await runAsThread(name, false);
    expect(answered.outcome.ok).toBe(true);
    expect(answered.walks).toEqual([false]);

    const stopped = await runAsThread(name, true);
    expect(stopped.outcome.ok).toBe(false);
    expect(stopped.outcome.ok ? null : (stopped.outcome.error as { code?: string }).code).toBe("REQUEST_ABORTED");
    // The walk's own statement ended (the check before the read's next statement would have too).
    expect(stopped.walks).toEqual([true]);
  });
});
