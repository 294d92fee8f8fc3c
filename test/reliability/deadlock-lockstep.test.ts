import { createSecondInstance } from "../support/instances";
import { RECORD_EXECUTION, registerOperation, sha256Of } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";
import { testProvider } from "../support/test-database";
import type { GroupCommit } from "../../src/services/recording";

const ROUNDS = 100;
const FILES = 12;

/**
 * Issue 13, point 1, as it was found: two clients in lockstep, each round recording the same files
 * (same content, so the same artifacts) in opposite orders — two runs re-emitting the same outputs.
 * Unsorted, their INSERTs into "Artifact" took row locks in opposite orders and PostgreSQL aborted
 * one of them (40P01) in most rounds. On PostgreSQL through two instances (transactions at once); on
 * SQLite through one (one process per file), whose writes SQLite serializes.
 */
describe(`two clients in lockstep recording the same artifacts in opposite orders (${testProvider === "postgres" ? "two instances" : "one instance"})`, () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp();
    b = testProvider === "postgres" ? await createSecondInstance(a) : a;
    await registerOperation(a, { name: "emit", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "file", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
  });
  afterAll(async () => {
    if (b !== a) await b.close();
    await a.close();
  });

  test(`${ROUNDS} rounds, 0 failures, every artifact stored once`, async () => {
    const failures: unknown[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const files = Array.from({ length: FILES }, (_, i) => ({ originalName: `round${round}_file${i}.csv`, contentHash: sha256Of(`round ${round} file ${i}`) }));
      const input = (artifacts: typeof files) => ({ operation: "emit", operationVersion: "1", inputs: [], outputs: [{ role: "file", artifacts }] });
      const answers = await Promise.all([a.gql(RECORD_EXECUTION, { input: input(files) }), b.gql(RECORD_EXECUTION, { input: input([...files].reverse()) })]);
      for (const answer of answers) if (answer.errors || answer.data?.recordExecution.__typename !== "RecordExecutionPayload") failures.push({ round, answer });
    }
    expect(failures).toEqual([]);
    const db = a.app.database.prisma;
    expect([await db.execution.count(), await db.artifact.count(), await db.executionArtifact.count()]).toEqual([2 * ROUNDS, FILES * ROUNDS, 2 * FILES * ROUNDS]);
    // Sorted inserts take the locks in one order: the rounds needed no retry either.
    const retries = [a, b].filter((t, i) => i === 0 || t !== a).reduce((sum, t) => sum + (t.app.services.commits as GroupCommit).stats().retries, 0);
    expect(retries).toBe(0);
  }, 120_000);
});
