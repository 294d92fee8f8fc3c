import { createSecondInstance } from "../support/instances";
import { draft, RECORD_EXECUTION, registerOperation, tableCounts } from "../support/recording";
import { createTestApp, errorCodes, type TestApp } from "../support/test-app";
import { testProvider } from "../support/test-database";

const generator = (name: string) => ({ name, version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "sample", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });

const ROUNDS = 20;

// Issue 13, point 2: two clients recording different operations under one pipeline step at the
// same moment; the database's key on (pipeline, step) decides, and the loser is told STEP_CONFLICT.
// On PostgreSQL through two instances (their transactions run at once); on SQLite, where one
// process owns the file (docs/operating/several-instances.md), through one instance, whose writes SQLite serializes.
describe(`STEP_CONFLICT under concurrent recordings (${testProvider === "postgres" ? "two instances" : "one instance"})`, () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp();
    b = testProvider === "postgres" ? await createSecondInstance(a) : a;
    await registerOperation(a, generator("gen-a"));
    await registerOperation(a, generator("gen-b"));
  });
  afterAll(async () => {
    if (b !== a) await b.close();
    await a.close();
  });

  test(`${ROUNDS} rounds: exactly one operation wins each step, the other gets STEP_CONFLICT, the steps table agrees with executions`, async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const input = (operation: string) => ({ operation, operationVersion: "1", pipeline: "race", step: round, inputs: [], outputs: [{ role: "sample", artifacts: [draft(`${operation}_${round}.csv`)] }] });
      const [ra, rb] = await Promise.all([a.gql(RECORD_EXECUTION, { input: input("gen-a") }), b.gql(RECORD_EXECUTION, { input: input("gen-b") })]);
      const outcome = (r: typeof ra) => (r.errors ? errorCodes(r).join(",") : r.data!.recordExecution.__typename);
      outcomes.push([outcome(ra), outcome(rb)].sort().join(" "));
    }
    expect(outcomes).toEqual(Array(ROUNDS).fill("RecordExecutionPayload STEP_CONFLICT"));
    const db = a.app.database.prisma;
    const steps = await db.pipelineStep.findMany({ where: { pipeline: "race" }, select: { step: true, operationId: true } });
    const executions = await db.execution.findMany({ where: { pipeline: "race" }, select: { step: true, operationId: true } });
    expect(steps).toHaveLength(ROUNDS);
    expect(executions).toHaveLength(ROUNDS);
    const holder = new Map(steps.map((s) => [s.step, s.operationId]));
    expect(executions.filter((e) => holder.get(e.step!) !== e.operationId)).toEqual([]);
    expect((await tableCounts(a)).executions).toBe(ROUNDS);
  });

  test("the same operation recorded at once under a new step by both clients: both accepted, one step row", async () => {
    const input = (name: string) => ({ operation: "gen-a", operationVersion: "1", pipeline: "same", step: 0, inputs: [], outputs: [{ role: "sample", artifacts: [draft(name)] }] });
    const results = await Promise.all([a.gql(RECORD_EXECUTION, { input: input("same_a.csv") }), b.gql(RECORD_EXECUTION, { input: input("same_b.csv") })]);
    expect(results.map((r) => r.errors ?? r.data!.recordExecution.__typename)).toEqual(["RecordExecutionPayload", "RecordExecutionPayload"]);
    expect(await a.app.database.prisma.pipelineStep.count({ where: { pipeline: "same" } })).toBe(1);
  });
});
