import type { ReadDatabase } from "../../src/db/client";
import { type HeavyReadRuntime, runJob } from "../../src/services/heavy-reads/run-job";

/** A heavy read's time budget bounds what is answered, not only where the read looks at the clock. */
describe("a heavy read's deadline", () => {
  const runtime: HeavyReadRuntime = { database: { statementCount: () => 0 } as unknown as ReadDatabase, readers: new Map(), maxResultNodes: 50 };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const jobs = { slow: async (ms: number) => (await sleep(ms), "done") };

  test("a read that finishes after its deadline without looking at the clock answers QUERY_TIMEOUT, not its result", async () => {
    const outcome = await runJob(jobs, runtime, { name: "slow", args: 40, deadline: Date.now() + 5, budgetMs: 5 });
    expect(outcome.ok).toBe(false);
    expect(outcome.ok === false && outcome.error).toMatchObject({ code: "QUERY_TIMEOUT", details: { budgetMs: 5 } });
  });

  test("a read that finishes within its deadline answers its result", async () => {
    await expect(runJob(jobs, runtime, { name: "slow", args: 1, deadline: Date.now() + 10_000, budgetMs: 10_000 })).resolves.toEqual({ ok: true, value: "done", statements: 0 });
  });

  test("a read whose client went away stops at its next check with REQUEST_ABORTED; before it started, it does not run", async () => {
    const gone = new Int32Array(new SharedArrayBuffer(4));
    const phases: string[] = [];
    const staged = {
      staged: async (_: null, ctx: { checkDeadline(): void }) => {
        phases.push("first");
        Atomics.store(gone, 0, 1);
        ctx.checkDeadline();
        phases.push("second");
      },
    };
    expect(await runJob(staged, runtime, { name: "staged", args: null, deadline: Date.now() + 10_000, budgetMs: 10_000, gone })).toMatchObject({ ok: false, error: { code: "REQUEST_ABORTED" } });
    expect(phases).toEqual(["first"]);
    await runJob(staged, runtime, { name: "staged", args: null, deadline: Date.now() + 10_000, budgetMs: 10_000, gone });
    expect(phases).toEqual(["first"]);
  });

  test("a read whose deadline passed before it started does not run", async () => {
    let ran = false;
    const outcome = await runJob({ mark: async () => (ran = true) }, runtime, { name: "mark", args: null, deadline: Date.now() - 1, budgetMs: 1 });
    expect(outcome).toMatchObject({ ok: false, error: { code: "QUERY_TIMEOUT" } });
    expect(ran).toBe(false);
  });
});
