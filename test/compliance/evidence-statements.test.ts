import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { draft, recordOk, registerOperation } from "../support/recording";

/**
 * GET /api/v1/evidence decides, as evidencePackage does, which runs' params the viewer may not see:
 * the policy tags of every run in the package, looked up together. One lookup per run made a
 * package of 10,000 runs take 20 s (the compliance bench); the statements now depend on the
 * package's shape, not on how many runs it holds.
 */
describe("GET /api/v1/evidence: the runs' policy tags in one batch", () => {
  let t: TokenTestApp;
  let reader: string;
  beforeAll(async () => {
    t = await createTokenTestApp();
    reader = await t.issue(["read"], { name: "auditor" });
    await registerOperation(t, { name: "extract", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    await registerOperation(t, { name: "refine", version: "1", kind: "CREATOR", inputs: [{ role: "in", artifactType: "csv" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["in"] } }] });
    await registerOperation(t, { name: "combine", version: "1", kind: "CREATOR", inputs: [{ role: "in", artifactType: "csv" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["in"] } }] });
  });
  afterAll(() => t.close());

  /** One extract of `parts` files, each refined by a run of its own, combined by one more: a package of parts + 1 runs that derived something. */
  async function combined(prefix: string, parts: number): Promise<string> {
    const names = Array.from({ length: parts }, (_, i) => `${prefix}_${i}.csv`);
    const extract = await recordOk(t, { operation: "extract", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: names.map(draft) }] });
    const inputs: string[] = [];
    for (const name of names) {
      const part = await recordOk(t, { operation: "refine", operationVersion: "1", inputs: [{ role: "in", artifactIds: [extract.outputIds[name]] }], outputs: [{ role: "out", artifacts: [draft(name.replace(".csv", "_clean.csv"))] }] });
      inputs.push(part.outputIds[name.replace(".csv", "_clean.csv")]);
    }
    const top = await recordOk(t, {
      operation: "combine",
      operationVersion: "1",
      inputs: [{ role: "in", artifactIds: inputs }],
      outputs: [{ role: "out", artifacts: [draft(`${prefix}.csv`)] }],
      lineage: [{ output: `${prefix}.csv`, sources: inputs }],
    });
    return top.outputIds[`${prefix}.csv`];
  }

  async function statementsFor(artifactId: string, runs: number): Promise<number> {
    const before = t.app.database.statementCount();
    const answer = await t.send({ token: reader, path: `/api/v1/evidence/${artifactId}` });
    const statements = t.app.database.statementCount() - before;
    expect(answer.status).toBe(200);
    expect((answer.json as { runs: unknown[] }).runs.length).toBeGreaterThanOrEqual(runs);
    return statements;
  }

  test("a package of 41 runs is read with the statements of a package of 3", async () => {
    const small = await combined("small", 2);
    const large = await combined("large", 40);
    const forSmall = await statementsFor(small, 3);
    const forLarge = await statementsFor(large, 41);
    // Before: one tag lookup per run (each a statement or more), 40+ statements more for the large one.
    expect(forLarge).toBeLessThanOrEqual(forSmall + 2);
  });
});
