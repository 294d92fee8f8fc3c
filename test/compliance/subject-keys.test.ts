import { createHmac } from "node:crypto";
import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { allCounts, ERASURE_SECRET, hopEvent } from "../support/compliance";
import { postLineage } from "../support/openlineage";
import { draft, recordOk, registerOperation } from "../support/recording";
import { errorCodes } from "../support/test-app";

/**
 * Subject keys are normalised before they are hashed — surrounding white space trimmed, Unicode NFC,
 * the namespace (before the first ':') in lower case, and the whole key in lower case in the
 * namespaces configured case-insensitive — so one subject is one hash however a source spells it.
 * Tombstones and declarations hashed before normalisation (of the key as given) keep matching it.
 */
const RECORD = `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename } }`;
const PLAN = `mutation($subjectKey: String!) { erasurePlan(subjectKey: $subjectKey) { id keyHash roots { artifactId } } }`;
const EXECUTE = `mutation($planId: ID!) { executeErasure(planId: $planId) { status } }`;
/** The hash a key had before normalisation: HMAC of the key exactly as given. */
const hashAsGiven = (key: string) => `hmac-sha256:${createHmac("sha256", ERASURE_SECRET).update(`provgraph-subject-key\u0000${key}`, "utf8").digest("hex")}`;

describe("subject keys are normalised before hashing", () => {
  let t: TokenTestApp;
  let n = 0;
  beforeAll(async () => {
    t = await createTokenTestApp({ env: { PROVGRAPH_ERASURE_SECRET: ERASURE_SECRET, PROVGRAPH_SUBJECT_KEYS_CASE_INSENSITIVE: "email" } });
    await registerOperation(t, { name: "extract", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
  });
  afterAll(() => t.close());

  const gql = async (query: string, variables: Record<string, unknown>) => {
    const res = await t.gqlAs(t.adminToken, query, variables);
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data!;
  };
  /** Records an artifact declaring `keys`; its error codes (none when recorded). */
  const declare = async (...keys: string[]) => errorCodes(await t.gqlAs(t.adminToken, RECORD, { input: { operation: "extract", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [{ ...draft(`batch-${n++}.csv`), subjectKeys: keys }] }] } }));
  const erase = async (key: string) => {
    const plan = (await gql(PLAN, { subjectKey: key })).erasurePlan;
    await gql(EXECUTE, { planId: plan.id });
    return plan;
  };

  test("a key with surrounding spaces (a no-break space too) or a decomposed accent is the same subject: refused once erased, by recordExecution and by the OpenLineage facet, and nothing is written", async () => {
    expect(await declare("crm-cust-000417", "crm-cust-ré-9")).toEqual([]);
    const plan = await erase("crm-cust-000417");
    expect(plan.keyHash).toBe(hashAsGiven("crm-cust-000417"));
    await erase("crm-cust-re\u0301-9");
    const before = await allCounts(t);
    for (const spelling of [" crm-cust-000417", "crm-cust-000417 ", "  crm-cust-000417   ", "\u00a0crm-cust-000417", "crm-cust-ré-9", "  crm-cust-re\u0301-9"]) {
      expect([spelling, await declare(spelling)]).toEqual([spelling, ["SUBJECT_SUPPRESSED"]]);
    }
    const event = hopEvent("crm", "reload", [], { name: "crm.customers", fields: ["id"], facets: { provgraph_dataSubjects: { keys: ["  crm-cust-000417"] } } }, []);
    const answer = await postLineage(t, JSON.stringify(event), { "content-type": "application/json", authorization: `Bearer ${t.adminToken}` });
    expect([answer.status, answer.json.error.code]).toEqual([422, "SUBJECT_SUPPRESSED"]);
    expect({ ...(await allCounts(t)), auditEvents: before.auditEvents }).toEqual(before);
    // Another subject is still another subject.
    expect(await declare("crm-cust-000418")).toEqual([]);
  });

  test("case: a namespace configured case-insensitive (email) matches any case; others keep their case, and a namespace's own name is compared in lower case", async () => {
    await erase("email:Alice@Example.com");
    await erase("crm:Cust-7");
    expect(await declare("EMAIL:alice@example.COM")).toEqual(["SUBJECT_SUPPRESSED"]);
    expect(await declare("CRM:Cust-7")).toEqual(["SUBJECT_SUPPRESSED"]);
    expect(await declare("crm:cust-7")).toEqual([]);
    expect(await declare("Cust-7")).toEqual([]);
  });

  test("a tombstone and a declaration hashed before normalisation (of the key as given) still match: the same spelling is refused, and a plan for it finds the old declaration", async () => {
    // A store from before normalisation: the subject " crm-cust-legacy " was declared and erased as given.
    const legacy = " crm-cust-legacy ";
    const old = await recordOk(t, { operation: "extract", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [draft("legacy.csv")] }] });
    const db = t.app.database.prisma;
    await db.subjectDeclaration.create({ data: { keyHash: hashAsGiven(legacy), artifactId: old.outputIds["legacy.csv"], createdAt: new Date() } });
    const plan = (await gql(PLAN, { subjectKey: legacy })).erasurePlan;
    expect(plan.keyHash).toBe(hashAsGiven("crm-cust-legacy"));
    expect(plan.roots).toEqual([{ artifactId: old.outputIds["legacy.csv"] }]);
    await db.subjectTombstone.create({ data: { keyHash: hashAsGiven(" crm-cust-older "), planId: plan.id, createdAt: new Date() } });
    expect(await declare(" crm-cust-older ")).toEqual(["SUBJECT_SUPPRESSED"]);
    // Another spelling of that old key cannot be matched to its old hash (a hash cannot be undone): erasing it again with the key adds the normalised tombstone.
    expect(await declare("crm-cust-older")).toEqual([]);
    await erase(" crm-cust-older ");
    expect(await declare("crm-cust-older")).toEqual(["SUBJECT_SUPPRESSED"]);
  });
});
