import { randomUUID } from "node:crypto";
import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { allCounts, ingest, latestVersionId } from "../support/compliance";
import { dataset, postLineage, runEvent } from "../support/openlineage";
import { BUDGET, DECLARE, protectedChain, RAISE, releaseEvent } from "../support/privacy";
import { draft, RECORD_EXECUTION, registerOperation } from "../support/recording";
import { errorCodes } from "../support/test-app";

/**
 * A differential-privacy budget per dataset: a release (a run declaring its privacy cost) debits
 * every protected dataset it reads, directly or through lineage, in its own transaction, under basic
 * sequential composition; one that would overspend any budget is refused whole
 * (PRIVACY_BUDGET_EXHAUSTED, naming the dataset, what is left and what was asked) and writes nothing.
 * A budget is raised only by an audited admin action with a reason.
 */
describe("differential-privacy budgets", () => {
  let t: TokenTestApp;
  let analyst: string;
  let writer: string;
  beforeAll(async () => {
    t = await createTokenTestApp();
    analyst = await t.issue(["read", "write"], { name: "dp-analyst" });
    writer = await t.issue(["read", "write"], { name: "writer" });
    await registerOperation(t, { name: "dp_count", version: "1", kind: "CREATOR", inputs: [{ role: "in", artifactType: "dataset" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["in"] } }] });
  });
  afterAll(() => t.close());

  const gql = async (query: string, variables: Record<string, unknown>, token = t.adminToken) => {
    const res = await t.gqlAs(token, query, variables);
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data!;
  };
  const budget = async (namespace: string, name = "crm.customers") => (await gql(BUDGET, { namespace, name }, analyst)).privacyBudget;
  /** Posts one event as `token`; the HTTP status and the error code, if any. */
  const post = async (event: Record<string, unknown>, token = analyst) => {
    const answer = await postLineage(t, JSON.stringify(event), { "content-type": "application/json", authorization: `Bearer ${token}` });
    return { status: answer.status, code: answer.json?.error?.code ?? null, error: answer.json?.error ?? null };
  };

  test("the seed's case: releases of ε = 0.4 against a budget of 1.0 — the first two debit the protected source through two hops of lineage, the third is refused naming the dataset, what is left and what was asked, and writes nothing", async () => {
    await ingest(t, ...protectedChain("dp"));
    const declared = await gql(DECLARE, { input: { namespace: "dp", name: "crm.customers", epsilon: 1.0, reason: "customer master: DP releases only" } });
    expect(declared.declarePrivacyBudget).toEqual({ namespace: "dp", name: "crm.customers", epsilon: { total: 1, spent: 0, remaining: 1 }, delta: { total: null, spent: 0, remaining: null }, perReleaseEpsilon: null, accounting: "BASIC_SEQUENTIAL" });

    const first = releaseEvent("dp", ["marts.segments"], { epsilon: 0.4, mechanism: "laplace" });
    const second = releaseEvent("dp", ["marts.segments"], { epsilon: 0.4, delta: 0.000001, mechanism: "gaussian" });
    expect(await post(first)).toEqual({ status: 201, code: null, error: null });
    expect(await post(second)).toEqual({ status: 201, code: null, error: null });
    const b = await budget("dp");
    expect(b.epsilon).toEqual({ total: 1, spent: 0.8, remaining: 0.2 });
    expect(b.delta).toEqual({ total: null, spent: 0.000001, remaining: null });
    expect(b.releases.edges.map((e: any) => e.node)).toEqual([
      { runId: `run_${second.run.runId}`, principal: "dp-analyst", epsilon: 0.4, delta: 0.000001, mechanism: "gaussian", epsilonSpentAfter: 0.8, at: expect.any(String) },
      { runId: `run_${first.run.runId}`, principal: "dp-analyst", epsilon: 0.4, delta: 0, mechanism: "laplace", epsilonSpentAfter: 0.4, at: expect.any(String) },
    ]);

    const before = await allCounts(t);
    const third = await post(releaseEvent("dp", ["marts.segments"], { epsilon: 0.4, mechanism: "laplace" }));
    expect(third).toMatchObject({ status: 422, code: "PRIVACY_BUDGET_EXHAUSTED" });
    expect(third.error).toMatchObject({ dataset: "dp/crm.customers", namespace: "dp", name: "crm.customers", limit: "EPSILON", remainingEpsilon: 0.2, askedEpsilon: 0.4, pointer: "/run/facets/provgraph_privacyCost" });
    expect({ ...(await allCounts(t)), auditEvents: before.auditEvents }).toEqual(before);
  });

  test("recordExecution's privacyCost: a release reading a protected dataset's version debits its budget, named by the token's principal; an exhausted budget refuses it with the typed error and nothing is written", async () => {
    await ingest(t, ...protectedChain("rx"));
    await gql(DECLARE, { input: { namespace: "rx", name: "crm.customers", epsilon: 0.5, reason: "pilot" } });
    const segments = await latestVersionId(t, "rx", "marts.segments");
    const release = (name: string, epsilon: number) => ({
      input: { operation: "dp_count", operationVersion: "1", inputs: [{ role: "in", artifactIds: [segments] }], outputs: [{ role: "out", artifacts: [draft(name)] }], lineage: [{ output: name, sources: [segments] }], privacyCost: { epsilon, mechanism: "laplace" } },
    });
    const ok = await t.gqlAs(analyst, RECORD_EXECUTION, release("counts-1.csv", 0.3));
    expect(ok.errors).toBeUndefined();
    const runId = ok.data!.recordExecution.execution.runId;
    expect((await budget("rx")).releases.edges.map((e: any) => [e.node.runId, e.node.principal, e.node.epsilon])).toEqual([[runId, "dp-analyst", 0.3]]);

    const before = await allCounts(t);
    const refused = await t.gqlAs(analyst, RECORD_EXECUTION, release("counts-2.csv", 0.3));
    expect(errorCodes(refused)).toEqual(["PRIVACY_BUDGET_EXHAUSTED"]);
    expect(refused.errors![0].extensions).toMatchObject({ field: "privacyCost", dataset: "rx/crm.customers", remainingEpsilon: 0.2, askedEpsilon: 0.3 });
    expect(refused.errors![0].message).toBe(`the release of ${refused.errors![0].message.match(/run_[0-9a-f-]+/)![0]} asks ε = 0.3, but the privacy budget of dataset rx/crm.customers has ε = 0.2 left: refused`);
    expect({ ...(await allCounts(t)), auditEvents: before.auditEvents }).toEqual(before);
  });

  test("every protected ancestor is debited in the same transaction; when one of them would be overspent, neither is", async () => {
    await ingest(t, ...protectedChain("two"));
    await gql(DECLARE, { input: { namespace: "two", name: "crm.customers", epsilon: 2, reason: "x" } });
    await gql(DECLARE, { input: { namespace: "two", name: "staging.customers", epsilon: 0.5, reason: "x" } });
    expect((await post(releaseEvent("two", ["marts.segments"], { epsilon: 0.5, mechanism: "laplace" }))).status).toBe(201);
    expect([(await budget("two")).epsilon.spent, (await budget("two", "staging.customers")).epsilon.spent]).toEqual([0.5, 0.5]);
    const before = await allCounts(t);
    const refused = await post(releaseEvent("two", ["marts.segments"], { epsilon: 0.1, mechanism: "laplace" }));
    expect(refused).toMatchObject({ status: 422, code: "PRIVACY_BUDGET_EXHAUSTED", error: { dataset: "two/staging.customers", remainingEpsilon: 0, askedEpsilon: 0.1 } });
    expect({ ...(await allCounts(t)), auditEvents: before.auditEvents }).toEqual(before);
    // A run that declares no cost reads the same data freely: it is no release.
    expect((await post(runEvent({ job: { namespace: "two", name: "plain" }, inputs: [dataset("two", "marts.segments", { version: { datasetVersion: "v1" } })], outputs: [dataset("two", "plain.out")] }))).status).toBe(201);
  });

  test("basic sequential composition is exact: ten releases of ε = 0.1 spend exactly 1.0, the eleventh is refused; a per-release cap and a δ bound refuse with their own terms", async () => {
    await ingest(t, ...protectedChain("seq"));
    await gql(DECLARE, { input: { namespace: "seq", name: "crm.customers", epsilon: 1, delta: 0.00001, perReleaseEpsilon: 0.5, reason: "x" } });
    for (let i = 0; i < 10; i++) expect((await post(releaseEvent("seq", ["crm.customers"], { epsilon: 0.1, delta: 0.000001, mechanism: "laplace" }))).status).toBe(201);
    const b = await budget("seq");
    expect([b.epsilon, b.delta]).toEqual([{ total: 1, spent: 1, remaining: 0 }, { total: 0.00001, spent: 0.00001, remaining: 0 }]);
    expect((await post(releaseEvent("seq", ["crm.customers"], { epsilon: 0.1, mechanism: "laplace" }))).error).toMatchObject({ code: "PRIVACY_BUDGET_EXHAUSTED", limit: "EPSILON", remainingEpsilon: 0, askedEpsilon: 0.1 });

    await gql(RAISE, { input: { namespace: "seq", name: "crm.customers", epsilon: 5, reason: "new quarter's allowance" } });
    expect((await post(releaseEvent("seq", ["crm.customers"], { epsilon: 0.6, mechanism: "laplace" }))).error).toMatchObject({ code: "PRIVACY_RELEASE_CAP_EXCEEDED", perReleaseEpsilon: 0.5, askedEpsilon: 0.6 });
    expect((await post(releaseEvent("seq", ["crm.customers"], { epsilon: 0.1, delta: 0.000001, mechanism: "gaussian" }))).error).toMatchObject({ code: "PRIVACY_BUDGET_EXHAUSTED", limit: "DELTA", remainingDelta: 0, askedDelta: 0.000001 });
  });

  test("a cost finer than the ledger's 10⁻¹² is spent rounded up, a limit rounded down: releases of δ = 10⁻¹⁵ each spend 10⁻¹², and a budget below 10⁻¹² is refused", async () => {
    await ingest(t, ...protectedChain("fine"));
    const tooSmall = await t.gqlAs(t.adminToken, DECLARE, { input: { namespace: "fine", name: "crm.customers", epsilon: 1e-13, reason: "x" } });
    expect([errorCodes(tooSmall), tooSmall.errors?.[0].extensions?.field]).toEqual([["INVALID_ARGUMENT"], "epsilon"]);
    // δ = 3.5 × 10⁻¹² keeps 3 × 10⁻¹² (down): three releases of δ = 10⁻¹⁵, each spending 10⁻¹² (up), and no fourth.
    await gql(DECLARE, { input: { namespace: "fine", name: "crm.customers", epsilon: 1, delta: 3.5e-12, reason: "x" } });
    for (let i = 0; i < 3; i++) expect((await post(releaseEvent("fine", ["crm.customers"], { epsilon: 0.1, delta: 1e-15, mechanism: "gaussian" }))).status).toBe(201);
    expect((await post(releaseEvent("fine", ["crm.customers"], { epsilon: 0.1, delta: 1e-15, mechanism: "gaussian" }))).error).toMatchObject({ code: "PRIVACY_BUDGET_EXHAUSTED", limit: "DELTA", remainingDelta: 0, askedDelta: 1e-12 });
    const b = await budget("fine");
    expect([b.epsilon, b.delta]).toEqual([{ total: 1, spent: 0.3, remaining: 0.7 }, { total: 3e-12, spent: 3e-12, remaining: 0 }]);
  });

  test("a release's later event that reads a newly protected dataset debits it; the same run cannot change its cost", async () => {
    await ingest(t, ...protectedChain("late"));
    await gql(DECLARE, { input: { namespace: "late", name: "crm.customers", epsilon: 1, reason: "x" } });
    await ingest(t, runEvent({ job: { namespace: "late", name: "load_regions" }, outputs: [dataset("late", "ref.regions", { version: { datasetVersion: "v1" } })] }));
    await gql(DECLARE, { input: { namespace: "late", name: "ref.regions", epsilon: 1, reason: "x" } });
    const runId = randomUUID();
    expect((await post(releaseEvent("late", ["marts.segments"], { epsilon: 0.2, mechanism: "laplace" }, { runId, report: "reports.r" }))).status).toBe(201);
    expect((await post(releaseEvent("late", ["marts.segments", "ref.regions"], { epsilon: 0.2, mechanism: "laplace" }, { runId, report: "reports.r", extra: { eventTime: "2026-03-11T03:00:00.000Z" } }))).status).toBe(201);
    expect([(await budget("late")).epsilon.spent, (await budget("late", "ref.regions")).epsilon.spent]).toEqual([0.2, 0.2]);
    const changed = await post(releaseEvent("late", ["marts.segments"], { epsilon: 0.05, mechanism: "laplace" }, { runId, report: "reports.r", extra: { eventTime: "2026-03-11T04:00:00.000Z" } }));
    expect(changed).toMatchObject({ status: 422, code: "PRIVACY_COST_CHANGED", error: { pointer: "/run/facets/provgraph_privacyCost", runId: `run_${runId}` } });
  });

  test("raising a budget is an audited admin action with a reason; it never lowers; declaring twice is refused; writers cannot", async () => {
    await gql(DECLARE, { input: { namespace: "adm", name: "t", epsilon: 1, delta: 0.00001, reason: "initial" } });
    const raised = await gql(RAISE, { input: { namespace: "adm", name: "t", epsilon: 2, reason: "approved by the DPO, ticket 42" } });
    expect(raised.raisePrivacyBudget).toEqual({ epsilon: { total: 2, spent: 0, remaining: 2 }, delta: { total: 0.00001 }, perReleaseEpsilon: null });
    expect((await budget("adm", "t")).changes).toEqual([
      { action: "DECLARE", epsilon: 1, delta: 0.00001, perReleaseEpsilon: null, previousEpsilon: null, reason: "initial", changedBy: "bootstrap" },
      { action: "RAISE", epsilon: 2, delta: 0.00001, perReleaseEpsilon: null, previousEpsilon: 1, reason: "approved by the DPO, ticket 42", changedBy: "bootstrap" },
    ]);
    const audit = await gql(`{ auditLog(first: 5) { edges { node { action actor outcome } } } }`, {});
    expect(audit.auditLog.edges.map((e: any) => e.node)).toContainEqual({ action: "raisePrivacyBudget", actor: "bootstrap", outcome: "OK" });

    const refusals: [string, Record<string, unknown>, string, string][] = [
      [RAISE, { namespace: "adm", name: "t", epsilon: 1.5, reason: "lower" }, "INVALID_ARGUMENT", "epsilon"],
      [RAISE, { namespace: "adm", name: "t", epsilon: 3, delta: 0.000001, reason: "lower δ" }, "INVALID_ARGUMENT", "delta"],
      [RAISE, { namespace: "adm", name: "t", epsilon: 3, reason: "  " }, "INVALID_ARGUMENT", "reason"],
      [RAISE, { namespace: "adm", name: "none", epsilon: 3, reason: "x" }, "NOT_FOUND", "dataset"],
      [DECLARE, { namespace: "adm", name: "t", epsilon: 3, reason: "again" }, "PRIVACY_BUDGET_ALREADY_DECLARED", "dataset"],
      [DECLARE, { namespace: "adm", name: "u", epsilon: 0, reason: "x" }, "INVALID_ARGUMENT", "epsilon"],
      [DECLARE, { namespace: "adm", name: "u", epsilon: 1, delta: 1, reason: "x" }, "INVALID_ARGUMENT", "delta"],
      [DECLARE, { namespace: "adm", name: "u", epsilon: 1, perReleaseEpsilon: 2, reason: "x" }, "INVALID_ARGUMENT", "perReleaseEpsilon"],
    ];
    for (const [query, input, code, field] of refusals) {
      const before = await allCounts(t);
      const res = await t.gqlAs(t.adminToken, query, { input });
      expect([input, errorCodes(res), res.errors?.[0]?.extensions?.field]).toEqual([input, [code], field]);
      expect({ ...(await allCounts(t)), auditEvents: before.auditEvents }).toEqual(before);
    }
    expect(errorCodes(await t.gqlAs(writer, RAISE, { input: { namespace: "adm", name: "t", epsilon: 9, reason: "x" } }))).toEqual(["FORBIDDEN"]);
    expect(errorCodes(await t.gqlAs(analyst, BUDGET, { namespace: "adm", name: "nothing" }))).toEqual(["NOT_FOUND"]);
  });

  test("a malformed privacy cost is refused where it was given: recordExecution's field, the facet's JSON pointer", async () => {
    const segments = await latestVersionId(t, "dp", "marts.segments");
    const cases: [Record<string, unknown>, string][] = [
      [{ epsilon: 0, mechanism: "laplace" }, "privacyCost.epsilon"],
      [{ epsilon: -1, mechanism: "laplace" }, "privacyCost.epsilon"],
      [{ epsilon: 0.1, delta: 1, mechanism: "laplace" }, "privacyCost.delta"],
      [{ epsilon: 0.1, mechanism: " " }, "privacyCost.mechanism"],
    ];
    for (const [privacyCost, field] of cases) {
      const res = await t.gqlAs(analyst, RECORD_EXECUTION, { input: { operation: "dp_count", operationVersion: "1", inputs: [{ role: "in", artifactIds: [segments] }], outputs: [{ role: "out", artifacts: [draft("bad.csv")] }], lineage: [{ output: "bad.csv", sources: [segments] }], privacyCost } });
      expect([errorCodes(res), res.errors?.[0]?.extensions?.field]).toEqual([["INVALID_ARGUMENT"], field]);
    }
    const bad = await post(releaseEvent("dp", ["marts.segments"], { epsilon: "lots", mechanism: "laplace" }));
    expect(bad).toMatchObject({ status: 400, code: "INVALID_EVENT", error: { pointer: "/run/facets/provgraph_privacyCost/epsilon" } });
  });

  test("the ledger invariant holds: every budget's spend is its ledger's sum, within its totals", async () => {
    const report = await gql(`query { integrityReport { invariants { name violations checked } } }`, {});
    // Every budget the tests above declared is checked.
    const budgets = await t.app.database.prisma.privacyBudget.count();
    expect(budgets).toBe(9);
    expect(report.integrityReport.invariants.find((i: any) => i.name === "privacy-ledger")).toEqual({ name: "privacy-ledger", violations: 0, checked: budgets });
  });
});
