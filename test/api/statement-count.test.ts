import { createTestApp, type TestApp } from "../support/test-app";
import { seedExecution } from "../support/seed";

/** Nested fields are batched: the statements a query issues depend on its shape, not on its row count. */
describe("SQL statements per query", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
    for (let i = 0; i < 200; i++) {
      await seedExecution(t.app.database.prisma, { operation: i % 2 ? "even" : "odd", label: `x${i}`, inputs: 3, outputs: 2 });
    }
  });
  afterAll(() => t.close());

  const query = `query($first: Int!) { executions(first: $first) { edges { node {
      runId operation { name inputs { role } }
      inputs { role artifact { id originalName producedBy { runId } consumedBy { runId } } }
      outputs { role artifact { id artifactType } } } } } }`;

  async function statementsFor(first: number) {
    const before = t.app.database.statementCount();
    const res: any = await t.gql(query, { first });
    expect(res.errors).toBeUndefined();
    expect(res.data.executions.edges).toHaveLength(first);
    expect(res.data.executions.edges[0].node.inputs).toHaveLength(3);
    return t.app.database.statementCount() - before;
  }

  test("reading 200 executions with inputs and outputs issues as many statements as reading 2", async () => {
    const forTwo = await statementsFor(2);
    const forTwoHundred = await statementsFor(200);
    // The same statements; on a busy machine a long statement makes the next one wait a turn
    // (no read holds the event loop), and a loader's batch may then go out in two parts: one more.
    expect(forTwoHundred).toBeGreaterThanOrEqual(forTwo);
    expect(forTwoHundred).toBeLessThanOrEqual(forTwo + 1);
    expect(forTwoHundred).toBeLessThanOrEqual(10);
  });
});
