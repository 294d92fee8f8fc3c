import { createPublicKey, generateKeyPairSync, verify } from "node:crypto";
import { randomUUID } from "node:crypto";
import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { allCounts, ERASURE_SECRET, hopEvent, ingest } from "../support/compliance";
import { dataset, postLineage, runEvent } from "../support/openlineage";
import { DECLARE as DECLARE_BUDGET, releaseEvent } from "../support/privacy";

/**
 * The compliance story end to end, through OpenLineage events and GraphQL only: a CRM source whose
 * tax_id is PII, nightly versions, staging, an opaque UDF, a risk figure filed as evidence, jobs that
 * declare their purposes, and a differential-privacy budget on the source.
 *  1. The next night's version of the CRM table holds the tag (and so does staging built from it).
 *  2. A UDF with no column lineage protects its output: it inherits PII through the opaque step.
 *  3. An as-of evidence document filed before a late event still verifies, signature included, with only the public key.
 *  4. A marketing run reading PII is refused (PURPOSE_NOT_PERMITTED, nothing written); a fraud run is accepted.
 *  5. The third ε = 0.4 release against a budget of 1.0 is refused (PRIVACY_BUDGET_EXHAUSTED, nothing written).
 */

const NS = "story";
const DIGEST = `sha256:${"4d7e0b31".repeat(8)}`;
const PINS = { codeVersion: { gitSha: "9f2c1ab", image: DIGEST }, provgraph_determinism: { deterministic: true } };
const PURPOSE_FACET = (purpose: string) => ({ provgraph_purpose: { _producer: "https://x", _schemaURL: "https://x/provgraph_purpose.json", purpose } });

const COLUMNS = `query($id: ID!) { artifact(id: $id) { columns { field sampleValues redacted policyTags { tag throughOpaqueStep } } } }`;
const VERSIONS = `query($ns: String!, $name: String!) { dataset(namespace: $ns, name: $name) { versions { id dataset { version } } } }`;
const PACKAGE = `query($namespace: String, $name: String, $field: String, $asOf: DateTime) {
  evidencePackage(namespace: $namespace, name: $name, field: $field, asOf: $asOf) { provable violations { rule } sha256 document signature { keyId jws } } }`;
const VERIFY = `query($jws: String) { verifyEvidence(jws: $jws) { valid signature { valid } } }`;

/** One night's load of crm.customers (sampled tax_id) and staging built from it, both at version `night`. */
function night(version: string) {
  const customers = (facets: Record<string, unknown> = {}) => ({ name: "crm.customers", fields: ["id", "tax_id", "region"], facets: { version: { datasetVersion: version }, ...facets } });
  return [
    hopEvent(NS, "crm.load", [], customers({ provgraph_columnSamples: { fields: { tax_id: [`NL-${version}-0417`] } } }), [], { runFacets: PINS }),
    hopEvent(NS, "staging.build", [customers()], { name: "staging.customers", fields: ["id", "tax_ref", "region"], facets: { version: { datasetVersion: version } } }, [
      ["id", "crm.customers", "id", "DIRECT"],
      ["tax_ref", "crm.customers", "tax_id", "DIRECT"],
      ["region", "crm.customers", "region", "DIRECT"],
    ], { runFacets: PINS }),
  ];
}

describe("the compliance story, end to end", () => {
  let t: TokenTestApp;
  let key: ReturnType<typeof generateKeyPairSync>["privateKey"];
  let analyst: string;
  let fraud: string;
  let marketing: string;
  let dp: string;
  beforeAll(async () => {
    key = generateKeyPairSync("ed25519").privateKey;
    t = await createTokenTestApp({ env: { PROVGRAPH_SIGNING_KEY: String(key.export({ format: "pem", type: "pkcs8" })), PROVGRAPH_ERASURE_SECRET: ERASURE_SECRET } });
    analyst = await t.issue(["read"], { name: "analyst" });
    fraud = await t.issue(["read", "write", "clearance:PII", "purpose:fraud-investigation"], { name: "fraud-job" });
    marketing = await t.issue(["read", "write", "clearance:PII", "purpose:marketing"], { name: "marketing-job" });
    dp = await t.issue(["read", "write"], { name: "dp-reporting" });
  });
  afterAll(() => t.close());

  const gql = async (query: string, variables: Record<string, unknown> = {}, token: string = t.adminToken) => {
    const res = await t.gqlAs(token, query, variables);
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data!;
  };
  const post = async (event: Record<string, unknown>, token: string) => {
    const answer = await postLineage(t, JSON.stringify(event), { "content-type": "application/json", authorization: `Bearer ${token}` });
    return { status: answer.status, error: answer.json?.error ?? null };
  };
  const versionId = async (name: string, version: string) => (await gql(VERSIONS, { ns: NS, name })).dataset.versions.find((v: any) => v.dataset.version === version).id as string;
  const columns = async (id: string, token = analyst) => Object.fromEntries((await gql(COLUMNS, { id }, token)).artifact.columns.map((c: any) => [c.field, c]));

  test("next version tagged, UDF output protected, as-of evidence verifying after a late event, purposes enforced on flows, the ε budget refusing the third release", async () => {
    // Night 1; the privacy officer tags the dataset's tax_id (every version) and says what PII may serve.
    await ingest(t, ...night("2026-02-27"));
    await gql(`mutation { tagColumn(input: { column: { namespace: "${NS}", name: "crm.customers", field: "tax_id" }, tag: "PII", reason: "tax identifiers" }) { created } }`);
    await gql(`mutation { declareTagPurposes(input: { tag: "PII", purposes: ["fraud-investigation", "regulatory-reporting"], reason: "PII never serves marketing" }) { tag } }`);

    // 1. The next night's version holds the tag without anyone touching it, and so does staging built from it.
    await ingest(t, ...night("2026-02-28"));
    const crm2 = await columns(await versionId("crm.customers", "2026-02-28"));
    expect(crm2.tax_id.policyTags.map((h: any) => h.tag)).toEqual(["PII"]);
    expect([crm2.tax_id.sampleValues, crm2.tax_id.redacted]).toEqual([null, ["description", "sampleValues", "facets"]]);
    expect((await columns(await versionId("staging.customers", "2026-02-28"))).tax_ref.policyTags.map((h: any) => h.tag)).toEqual(["PII"]);

    // 2. An opaque UDF (no column lineage) reads staging: its output's columns inherit PII through the opaque step.
    const udf = runEvent({
      job: { namespace: NS, name: "features.udf_score" },
      run: { runId: randomUUID(), facets: PINS },
      inputs: [dataset(NS, "staging.customers", { version: { datasetVersion: "2026-02-28" } })],
      outputs: [dataset(NS, "features.scores", { schema: { fields: [{ name: "score" }] }, provgraph_columnSamples: { fields: { score: [0.91] } }, version: { datasetVersion: "2026-02-28" } })],
    });
    await ingest(t, udf);
    const scoresId = await versionId("features.scores", "2026-02-28");
    const scores = await columns(scoresId);
    expect(scores.score.policyTags).toEqual([{ tag: "PII", throughOpaqueStep: true }]);
    expect([scores.score.sampleValues, scores.score.redacted]).toEqual([null, ["description", "sampleValues", "facets"]]);

    // 3. The risk figure, filed as of T (signed); then a late event says its run was not deterministic.
    const exposure = hopEvent(
      NS,
      "risk.build_exposure_daily",
      [{ name: "core.positions", fields: ["notional"], facets: { version: { datasetVersion: "4217" } } }],
      { name: "risk.exposure_daily", fields: ["exposure_eur"] },
      [["exposure_eur", "core.positions", "notional", "DIRECT"]],
      { runFacets: PINS },
    );
    await ingest(t, hopEvent(NS, "load_positions", [], { name: "core.positions", fields: ["notional"], facets: { version: { datasetVersion: "4217" } } }, [], { runFacets: PINS }), exposure);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const asOf = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const filed = (await gql(PACKAGE, { namespace: NS, name: "risk.exposure_daily", field: "exposure_eur", asOf }, analyst)).evidencePackage;
    expect([filed.provable, filed.violations]).toEqual([true, []]);
    await ingest(t, runEvent({ eventType: "OTHER", eventTime: "2026-03-11T03:00:00.000Z", run: { runId: (exposure.run as { runId: string }).runId, facets: { provgraph_determinism: { deterministic: false } } }, job: exposure.job }));
    expect((await gql(PACKAGE, { namespace: NS, name: "risk.exposure_daily", field: "exposure_eur" }, analyst)).evidencePackage.violations).toEqual([{ rule: "NON_DETERMINISTIC" }]);
    // The filed document still verifies, and a regulator holding only it and the public key checks the signature offline.
    expect((await gql(VERIFY, { jws: filed.signature.jws }, analyst)).verifyEvidence).toEqual({ valid: true, signature: { valid: true } });
    const publicPem = (await t.send({ token: null, path: `/api/v1/signing-keys?kid=${filed.signature.keyId}&format=pem` })).text;
    const [header, payload, signature] = filed.signature.jws.split(".");
    expect(verify(null, Buffer.from(`${header}.${payload}`), createPublicKey(publicPem), Buffer.from(signature, "base64url"))).toBe(true);
    expect(JSON.parse(Buffer.from(payload, "base64url").toString("utf8"))).toEqual(filed.document);

    // 4. A marketing segmentation job reading the CRM table is refused, nothing written; a fraud job reading it is accepted.
    const reading = (job: string, purpose: string, output: string) =>
      runEvent({ job: { namespace: NS, name: job, facets: PURPOSE_FACET(purpose) }, inputs: [dataset(NS, "crm.customers", { version: { datasetVersion: "2026-02-28" } })], outputs: [dataset(NS, output)] });
    const before = await allCounts(t);
    const refused = await post(reading("marketing.segment", "marketing", "marketing.segments"), marketing);
    expect([refused.status, refused.error.code, refused.error.tag, refused.error.column]).toEqual([422, "PURPOSE_NOT_PERMITTED", "PII", "tax_id"]);
    expect({ ...(await allCounts(t)), auditEvents: before.auditEvents }).toEqual(before);
    expect((await post(reading("fraud.investigate", "fraud-investigation", "fraud.cases"), fraud)).status).toBe(201);

    // 5. A budget of ε = 1.0 on the CRM table: two releases of 0.4 through lineage are debited, the third is refused, nothing written.
    await gql(DECLARE_BUDGET, { input: { namespace: NS, name: "crm.customers", epsilon: 1.0, reason: "customer master: DP releases only" } });
    const release = () => releaseEvent(NS, [], { epsilon: 0.4, mechanism: "laplace" }, { extra: { inputs: [dataset(NS, "staging.customers", { version: { datasetVersion: "2026-02-28" } })] } });
    expect((await post(release(), dp)).status).toBe(201);
    expect((await post(release(), dp)).status).toBe(201);
    expect((await gql(`query { privacyBudget(namespace: "${NS}", name: "crm.customers") { epsilon { spent remaining } } }`, {}, dp)).privacyBudget.epsilon).toEqual({ spent: 0.8, remaining: 0.2 });
    const beforeThird = await allCounts(t);
    const third = await post(release(), dp);
    expect([third.status, third.error.code, third.error.dataset, third.error.remainingEpsilon, third.error.askedEpsilon]).toEqual([422, "PRIVACY_BUDGET_EXHAUSTED", `${NS}/crm.customers`, 0.2, 0.4]);
    expect({ ...(await allCounts(t)), auditEvents: beforeThird.auditEvents }).toEqual(beforeThird);
  });
});
