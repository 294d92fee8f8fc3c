import BetterSqlite3 from "better-sqlite3";
import { createTestApp, type TestApp } from "../support/test-app";
import { dataset, postEvent, runEvent } from "../support/openlineage";
import { draft, generator, recordOk, registerOperation, transform } from "../support/recording";

/**
 * On SQLite a recording reuses the statements its connection already prepared: preparing costs more
 * than running (a 10 → 10 recording sends about twenty statements), so none is prepared again.
 * (SQLite pass only: PostgreSQL's driver prepares nothing client-side.)
 */
describe("statements prepared per recording on SQLite", () => {
  let t: TestApp;
  let prepare: jest.SpyInstance<BetterSqlite3.Statement, [string]>;

  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generator);
    await registerOperation(t, transform);
    prepare = jest.spyOn(BetterSqlite3.prototype, "prepare");
  });
  afterAll(async () => {
    prepare?.mockRestore();
    await t.close();
  });

  /** Records a source of 10 samples, then a 10 → 10 transform of them (two recordings per round). */
  async function recordRound(round: number) {
    const names = Array.from({ length: 10 }, (_, j) => `r${round}_${j}.csv`);
    const samples = await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: names.map(draft) }] });
    await recordOk(t, {
      operation: "transform",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: names.map((name) => samples.outputIds[name]) }],
      outputs: [{ role: "result", artifacts: names.map((name) => draft(name.replace(".csv", "_out.csv"))) }],
    });
  }

  test("100 recordings prepare no statement once the first round has run", async () => {
    await recordRound(0); // the first recordings of each shape prepare their statements
    prepare.mockClear();
    for (let round = 1; round <= 50; round++) await recordRound(round);
    const statements = prepare.mock.calls.map(([sql]) => sql);
    expect(statements).toEqual([]);
  });

  test("100 OpenLineage events prepare no statement once each job has sent two", async () => {
    const post = async (i: number) => {
      const event = runEvent({ job: { namespace: "prepared", name: `job${i % 5}` }, inputs: [dataset("warehouse", `in${i}`)], outputs: [dataset("warehouse", `out${i}`)] });
      expect((await postEvent(t, event)).status).toBe(201);
    };
    // A job's first event registers its operation, its second reads the operation back: statements of their own.
    for (let i = 0; i < 10; i++) await post(i);
    prepare.mockClear();
    for (let i = 10; i < 110; i++) await post(i);
    expect(prepare.mock.calls.map(([sql]) => sql)).toEqual([]);
  });
});
