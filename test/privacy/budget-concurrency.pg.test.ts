import { ingest, latestVersionId } from "../support/compliance";
import { createSecondInstance } from "../support/instances";
import { BUDGET, DECLARE, protectedChain } from "../support/privacy";
import { draft, RECORD_EXECUTION, registerOperation } from "../support/recording";
import { createTestApp, errorCodes, type GraphQLResponse, type TestApp } from "../support/test-app";

/**
 * Concurrent releases cannot overspend: 20 releases of ε = 0.1 sent at once through two server
 * instances (two commit paths, each coalescing its requests into transactions) against a budget of
 * 1.0 on PostgreSQL. The budget rows are locked in one order before they are read, so each
 * transaction reads what the one before it left: exactly ten are recorded, spending exactly 1.0,
 * and the other ten are refused with PRIVACY_BUDGET_EXHAUSTED — none with a conflict or an error of
 * ours — and leave nothing behind.
 */
describe("20 concurrent releases over two instances (PostgreSQL)", () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await createTestApp();
    b = await createSecondInstance(a);
    await registerOperation(a, { name: "dp_count", version: "1", kind: "CREATOR", inputs: [{ role: "in", artifactType: "dataset" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["in"] } }] });
    await ingest(a, ...protectedChain("cc"));
    const res = await a.gql(DECLARE, { input: { namespace: "cc", name: "crm.customers", epsilon: 1, reason: "concurrency" } });
    expect(res.errors).toBeUndefined();
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  test("exactly the budget is spent: ten recorded, ten refused, the ledger sums to 1.0", async () => {
    const segments = await latestVersionId(a, "cc", "marts.segments");
    const release = (i: number) => ({
      input: { operation: "dp_count", operationVersion: "1", inputs: [{ role: "in", artifactIds: [segments] }], outputs: [{ role: "out", artifacts: [draft(`release-${i}.csv`)] }], lineage: [{ output: `release-${i}.csv`, sources: [segments] }], privacyCost: { epsilon: 0.1, mechanism: "laplace" } },
    });
    const answers: GraphQLResponse[] = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).gql(RECORD_EXECUTION, release(i))));
    const outcomes = answers.map((r) => (r.errors ? errorCodes(r).join(",") : r.data!.recordExecution.__typename));
    expect(outcomes.filter((o) => o === "RecordExecutionPayload")).toHaveLength(10);
    expect(outcomes.filter((o) => o === "PRIVACY_BUDGET_EXHAUSTED")).toHaveLength(10);

    const budget = (await a.gql(BUDGET, { namespace: "cc", name: "crm.customers" })).data!.privacyBudget;
    expect(budget.epsilon).toEqual({ total: 1, spent: 1, remaining: 0 });
    const entries = budget.releases.edges.map((e: any) => e.node);
    expect(entries).toHaveLength(10);
    // The running total of the ledger climbs by exactly 0.1 each time: no two releases read the same remainder.
    expect(entries.map((e: any) => e.epsilonSpentAfter).sort()).toEqual([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]);
    const recorded = answers.flatMap((r) => (r.errors ? [] : [r.data!.recordExecution.execution.runId])).sort();
    expect(entries.map((e: any) => e.runId).sort()).toEqual(recorded);
    // The refused releases left no run, no release, no entry.
    const db = a.app.database.prisma;
    expect(await db.execution.count({ where: { operation: { name: "dp_count" } } })).toBe(10);
    expect(await db.privacyRelease.count()).toBe(10);
  });
});
