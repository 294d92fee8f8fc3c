import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type CrashFigures, formatFigures, runCrashScenario } from "./harness/crash-run";

// Issue 13, crash suite on SQLite: the real server, 8 concurrent writers (executions, composites,
// OpenLineage batches), SIGKILLed at random moments and restarted on the same file. After every
// restart the integrity checker finds nothing; at the end every acknowledged write is there.

const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);

describe("crash suite: SQLite", () => {
  let figures: CrashFigures;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-crash-"));

  beforeAll(async () => {
    figures = await runCrashScenario({ databaseUrl: `file:${path.join(dir, "crash.db")}`, label: "sqlite", clients: 8, kills: 6, loadBetweenKillsMs: [1000, 3000], seed: SEED });
    process.stdout.write(`\n${formatFigures(figures)}\n`);
  }, 240_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("survived 6 kills with writes acknowledged in between (executions, composites and OpenLineage runs)", () => {
    expect(figures.kills).toBe(6);
    expect([figures.acknowledged.executions > 0, figures.acknowledged.composites > 0, figures.acknowledged.openLineageRuns > 0]).toEqual([true, true, true]);
    expect(figures.integrityChecks).toBe(7);
  });

  test("every acknowledged write is in the store as it was answered", () => {
    expect(figures.missing).toEqual([]);
  });

  test("the integrity checker found no violation after any restart", () => {
    expect([Object.values(figures.violations).reduce((a, b) => a + b, 0), figures.violationSamples]).toEqual([0, []]);
  });

  test("the server never died by itself", () => {
    expect(figures.unexpectedExits).toEqual([]);
  });
});
