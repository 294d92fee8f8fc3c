import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { allCounts, allHoldings, columnTags, hopEvent, ingest, latestVersionId } from "../support/compliance";
import { draft, recordOk, registerOperation } from "../support/recording";
import { errorCodes } from "../support/test-app";

/**
 * Policy tags travel along column lineage (DIRECT and INDIRECT) and wasDerivedFrom, at write time
 * and as a backfill; downgrades are recorded, stick, and stop the tag at that node only.
 *
 * The fixture, per namespace (three hops of OpenLineage column lineage):
 *   crm.customers (id, tax_id, name)
 *     → staging.customers: tax_ref ← tax_id (DIRECT), region ← tax_id (INDIRECT), id ← id, name ← name
 *     → marts.stats: tax_bucket ← tax_ref (DIRECT) and ← name (INDIRECT), cnt ← region (INDIRECT), name_len ← name
 *     → reports.summary: bucket_report ← tax_bucket (DIRECT) and ← cnt (INDIRECT), tax_only ← tax_bucket, total ← cnt, names ← name_len
 */
function threeHops(ns: string) {
  return [
    hopEvent(ns, "load", [], { name: "crm.customers", fields: ["id", "tax_id", "name"] }, []),
    hopEvent(ns, "stage", [{ name: "crm.customers", fields: ["id", "tax_id", "name"] }], { name: "staging.customers", fields: ["id", "tax_ref", "region", "name"] }, [
      ["id", "crm.customers", "id", "DIRECT"],
      ["tax_ref", "crm.customers", "tax_id", "DIRECT"],
      ["region", "crm.customers", "tax_id", "INDIRECT"],
      ["name", "crm.customers", "name", "DIRECT"],
    ]),
    hopEvent(ns, "marts", [{ name: "staging.customers", fields: ["id", "tax_ref", "region", "name"] }], { name: "marts.stats", fields: ["tax_bucket", "cnt", "name_len"] }, [
      ["tax_bucket", "staging.customers", "tax_ref", "DIRECT"],
      ["tax_bucket", "staging.customers", "name", "INDIRECT"],
      ["cnt", "staging.customers", "region", "INDIRECT"],
      ["name_len", "staging.customers", "name", "DIRECT"],
    ]),
    hopEvent(ns, "report", [{ name: "marts.stats", fields: ["tax_bucket", "cnt", "name_len"] }], { name: "reports.summary", fields: ["bucket_report", "tax_only", "total", "names"] }, [
      ["bucket_report", "marts.stats", "tax_bucket", "DIRECT"],
      ["bucket_report", "marts.stats", "cnt", "INDIRECT"],
      ["tax_only", "marts.stats", "tax_bucket", "DIRECT"],
      ["total", "marts.stats", "cnt", "INDIRECT"],
      ["names", "marts.stats", "name_len", "DIRECT"],
    ]),
  ];
}

const TAG_COLUMN = `mutation($input: TagColumnInput!) { tagColumn(input: $input) { created holders assignment { id tag source reason assignedBy tokenId target { field } } } }`;
const TAG_ARTIFACT = `mutation($input: TagArtifactInput!) { tagArtifact(input: $input) { created holders assignment { id tag source } } }`;
const DOWNGRADE = `mutation($input: DowngradeTagInput!) { downgradeTag(input: $input) { id tag reason downgradedBy tokenId depth createdAt target { artifactId field } origin { tag target { field } } } }`;
const TAG_AUDIT = `query($tag: String) { tagAudit(tag: $tag, first: 10) { edges { node { tag reason downgradedBy tokenId depth createdAt target { artifactId field } origin { target { field } } } } } }`;

/** Every dataset of the fixture by its newest version's id, for reading origins back by name. */
async function namesOf(t: TokenTestApp, ns: string): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const name of ["crm.customers", "staging.customers", "marts.stats", "reports.summary", "exports.feed"]) {
    try {
      names.set(await latestVersionId(t, ns, name), name);
    } catch {
      // not ingested in this namespace
    }
  }
  return names;
}

/** What the PII tag on crm.customers.tax_id gives the fixture, by dataset: TAG@depth<-origin. */
const FROM_TAX_ID = {
  "crm.customers": { tax_id: ["PII@0<-crm.customers.tax_id"] },
  "staging.customers": { tax_ref: ["PII@1<-crm.customers.tax_id"], region: ["PII@1<-crm.customers.tax_id"] },
  "marts.stats": { tax_bucket: ["PII@2<-crm.customers.tax_id"], cnt: ["PII@2<-crm.customers.tax_id"] },
  "reports.summary": { bucket_report: ["PII@3<-crm.customers.tax_id"], tax_only: ["PII@3<-crm.customers.tax_id"], total: ["PII@3<-crm.customers.tax_id"] },
};

async function tagsOfFixture(t: TokenTestApp, ns: string) {
  const names = await namesOf(t, ns);
  const out: Record<string, Record<string, string[]>> = {};
  for (const name of ["crm.customers", "staging.customers", "marts.stats", "reports.summary"]) out[name] = await columnTags(t, ns, name, names);
  return out;
}

describe("policy-tag propagation", () => {
  let t: TokenTestApp;
  let dpo: string;
  beforeAll(async () => {
    // Token checks never reach the database mid-test (a refresh or a lastUsedAt write would count as a statement of the backfill).
    t = await createTokenTestApp({ app: { auth: { tokenCacheMs: 3_600_000, lastUsedIntervalMs: 3_600_000 } } });
    dpo = await t.issue(["admin", "read", "write"], { name: "dpo-alice" });
  });
  afterAll(() => t.close());

  const gql = async (query: string, variables: Record<string, unknown>, token: string = t.adminToken) => {
    const res = await t.gqlAs(token, query, variables);
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data!;
  };

  test("at write time: a PII tag on customers.tax_id reaches every descendant column through DIRECT and INDIRECT edges across three hops, each with its origin and path length", async () => {
    const [load, ...hops] = threeHops("w");
    await ingest(t, load);
    const tagged = await gql(TAG_COLUMN, { input: { column: { namespace: "w", name: "crm.customers", field: "tax_id" }, tag: "PII", reason: "national tax id" } });
    expect(tagged.tagColumn).toEqual({ created: true, holders: 1, assignment: { id: expect.any(Number), tag: "PII", source: "ADMIN", reason: "national tax id", assignedBy: "bootstrap", tokenId: expect.stringMatching(/^tok_/), target: { field: "tax_id" } } });
    await ingest(t, ...hops);
    expect(await tagsOfFixture(t, "w")).toEqual(FROM_TAX_ID);
  });

  test("a tag added later backfills the same holdings, in as many statements whatever the closure's size (one statement per hop set, not per node)", async () => {
    await ingest(t, ...threeHops("b"));
    expect(await tagsOfFixture(t, "b")).toEqual({ "crm.customers": {}, "staging.customers": {}, "marts.stats": {}, "reports.summary": {} });
    const before = t.app.database.statementCount();
    const tagged = await gql(TAG_COLUMN, { input: { column: { namespace: "b", name: "crm.customers", field: "tax_id" }, tag: "PII", reason: "national tax id" } });
    const narrow = t.app.database.statementCount() - before;
    expect(tagged.tagColumn.holders).toBe(8);
    expect(await tagsOfFixture(t, "b")).toEqual(FROM_TAX_ID);

    // The same three hops, twenty columns wide at every hop: 60 descendants instead of 7.
    const wide = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    await ingest(
      t,
      hopEvent("wide", "load", [], { name: "crm.customers", fields: ["tax_id"] }, []),
      hopEvent("wide", "h1", [{ name: "crm.customers", fields: ["tax_id"] }], { name: "h1", fields: wide(20, "a") }, wide(20, "a").map((f) => [f, "crm.customers", "tax_id", "DIRECT"])),
      hopEvent("wide", "h2", [{ name: "h1", fields: wide(20, "a") }], { name: "h2", fields: wide(20, "b") }, wide(20, "b").map((f, i) => [f, "h1", `a${i}`, i % 2 ? "INDIRECT" : "DIRECT"])),
      hopEvent("wide", "h3", [{ name: "h2", fields: wide(20, "b") }], { name: "h3", fields: wide(20, "c") }, wide(20, "c").map((f, i) => [f, "h2", `b${i}`, "DIRECT"])),
    );
    const start = t.app.database.statementCount();
    const wideTag = await gql(TAG_COLUMN, { input: { column: { namespace: "wide", name: "crm.customers", field: "tax_id" }, tag: "PII", reason: "national tax id" } });
    expect(wideTag.tagColumn.holders).toBe(61);
    expect(t.app.database.statementCount() - start).toBe(narrow);
    expect(narrow).toBeLessThanOrEqual(16);
  });

  test("tagging again is idempotent (the first assignment stands) and writes nothing", async () => {
    const before = await allCounts(t);
    const again = await gql(TAG_COLUMN, { input: { column: { namespace: "b", name: "crm.customers", field: "tax_id" }, tag: "PII", reason: "again" } });
    expect(again.tagColumn).toMatchObject({ created: false, holders: 8, assignment: { reason: "national tax id" } });
    expect({ ...(await allCounts(t)), auditEvents: before.auditEvents }).toEqual(before);
  });

  test("downgradeTag records the token's principal, the reason and the time, shows in tagAudit, and stops the tag at that node only: nodes reached by another path keep it", async () => {
    const names = await namesOf(t, "w");
    const marts = await latestVersionId(t, "w", "marts.stats");
    const before = Date.now();
    const downgrade = (await gql(DOWNGRADE, { input: { target: { namespace: "w", name: "marts.stats", field: "tax_bucket" }, tag: "PII", reason: "bucketed to 10 bands: no longer identifying" } }, dpo)).downgradeTag;
    expect(downgrade).toEqual({
      id: expect.any(Number),
      tag: "PII",
      reason: "bucketed to 10 bands: no longer identifying",
      downgradedBy: "dpo-alice",
      tokenId: expect.stringMatching(/^tok_/),
      depth: 2,
      createdAt: expect.any(String),
      target: { artifactId: marts, field: "tax_bucket" },
      origin: { tag: "PII", target: { field: "tax_id" } },
    });
    expect(Date.parse(downgrade.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(downgrade.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);

    const audit = (await gql(TAG_AUDIT, { tag: "PII" })).tagAudit.edges.map((e: any) => e.node);
    expect(audit).toEqual([{ tag: "PII", reason: "bucketed to 10 bands: no longer identifying", downgradedBy: "dpo-alice", tokenId: downgrade.tokenId, depth: 2, createdAt: downgrade.createdAt, target: { artifactId: marts, field: "tax_bucket" }, origin: { target: { field: "tax_id" } } }]);
    expect((await gql(TAG_AUDIT, { tag: "PCI" })).tagAudit.edges).toEqual([]);

    // The rule: tax_bucket no longer holds PII, and PII no longer flows through it — tax_only (reached
    // only through tax_bucket) loses it; bucket_report, reached also through cnt, keeps it.
    const after = await tagsOfFixture(t, "w");
    expect(after).toEqual({
      ...FROM_TAX_ID,
      "marts.stats": { cnt: ["PII@2<-crm.customers.tax_id"] },
      "reports.summary": { bucket_report: ["PII@3<-crm.customers.tax_id"], total: ["PII@3<-crm.customers.tax_id"] },
    });
    expect(names.get(marts)).toBe("marts.stats");
  });

  test("the downgrade sticks: new lineage out of the node and a new origin reaching it by another path do not give it the tag again", async () => {
    // New lineage from the downgraded column: the tag does not flow through it.
    await ingest(t, hopEvent("w", "export", [{ name: "marts.stats", fields: ["tax_bucket", "cnt", "name_len"] }], { name: "exports.feed", fields: ["bucket", "count"] }, [["bucket", "marts.stats", "tax_bucket", "DIRECT"], ["count", "marts.stats", "cnt", "DIRECT"]]));
    const names = await namesOf(t, "w");
    expect(await columnTags(t, "w", "exports.feed", names)).toEqual({ count: ["PII@3<-crm.customers.tax_id"] });

    // A second origin of PII, customers.name, reaches tax_bucket through staging.name (INDIRECT): still not given again.
    const second = await gql(TAG_COLUMN, { input: { column: { namespace: "w", name: "crm.customers", field: "name" }, tag: "PII", reason: "full name" } });
    expect(second.tagColumn.created).toBe(true);
    const tags = await tagsOfFixture(t, "w");
    expect(tags["marts.stats"]).toEqual({ cnt: ["PII@2<-crm.customers.tax_id"], name_len: ["PII@2<-crm.customers.name"] });
    expect(tags["staging.customers"]).toEqual({ ...FROM_TAX_ID["staging.customers"], name: ["PII@1<-crm.customers.name"] });
    expect(tags["reports.summary"]).toEqual({ bucket_report: ["PII@3<-crm.customers.tax_id"], total: ["PII@3<-crm.customers.tax_id"], names: ["PII@3<-crm.customers.name"] });
    expect(await columnTags(t, "w", "exports.feed", await namesOf(t, "w"))).toEqual({ count: ["PII@3<-crm.customers.tax_id"] });
  });

  test("the downgrade sticks against new lineage into the node itself (another run reporting the same version)", async () => {
    const v1 = { version: { datasetVersion: "v1" } };
    const stagingFields = ["id", "tax_ref", "region", "name"];
    await ingest(
      t,
      hopEvent("s", "load", [], { name: "crm.customers", fields: ["id", "tax_id", "name"] }, []),
      hopEvent("s", "stage", [{ name: "crm.customers", fields: ["id", "tax_id", "name"] }], { name: "staging.customers", fields: stagingFields }, [["tax_ref", "crm.customers", "tax_id", "DIRECT"], ["region", "crm.customers", "tax_id", "INDIRECT"]]),
      hopEvent("s", "marts", [{ name: "staging.customers", fields: stagingFields }], { name: "marts.stats", fields: ["tax_bucket", "cnt"], facets: v1 }, [["tax_bucket", "staging.customers", "tax_ref", "DIRECT"]]),
    );
    await gql(TAG_COLUMN, { input: { column: { namespace: "s", name: "crm.customers", field: "tax_id" }, tag: "PII", reason: "national tax id" } });
    const names = await namesOf(t, "s");
    expect(await columnTags(t, "s", "marts.stats", names)).toEqual({ tax_bucket: ["PII@2<-crm.customers.tax_id"] });
    await gql(DOWNGRADE, { input: { target: { namespace: "s", name: "marts.stats", version: "v1", field: "tax_bucket" }, tag: "PII", reason: "bucketed" } }, dpo);
    // Another run reports lineage into the same version v1: tax_bucket ← region (INDIRECT), cnt ← region.
    await ingest(t, hopEvent("s", "marts_again", [{ name: "staging.customers", fields: stagingFields }], { name: "marts.stats", fields: ["tax_bucket", "cnt"], facets: v1 }, [["tax_bucket", "staging.customers", "region", "INDIRECT"], ["cnt", "staging.customers", "region", "INDIRECT"]]));
    expect(await latestVersionId(t, "s", "marts.stats")).toBe([...names.entries()].find(([, n]) => n === "marts.stats")![0]);
    expect(await columnTags(t, "s", "marts.stats", names)).toEqual({ cnt: ["PII@2<-crm.customers.tax_id"] });
  });

  test("what the incremental flow keeps equals deriving every holding afresh by the rule", async () => {
    const kept = await allHoldings(t);
    await t.app.services.compliance.tags.recompute();
    expect(await allHoldings(t)).toEqual(kept);
  });

  test("artifacts inherit along wasDerivedFrom, with origin and path length; a later tag backfills", async () => {
    await registerOperation(t, { name: "extract", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    await registerOperation(t, { name: "refine", version: "1", kind: "CREATOR", inputs: [{ role: "in", artifactType: "csv" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["in"] } }] });
    const raw = (await recordOk(t, { operation: "extract", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [draft("cards.csv")] }] })).outputIds["cards.csv"];
    const clean = (await recordOk(t, { operation: "refine", operationVersion: "1", inputs: [{ role: "in", artifactIds: [raw] }], outputs: [{ role: "out", artifacts: [draft("cards.parquet")] }] })).outputIds["cards.parquet"];
    const tagged = await gql(TAG_ARTIFACT, { input: { artifactId: raw, tag: "PCI", reason: "card numbers" } });
    expect(tagged.tagArtifact).toMatchObject({ created: true, holders: 2, assignment: { tag: "PCI", source: "ADMIN" } });
    const model = (await recordOk(t, { operation: "refine", operationVersion: "1", inputs: [{ role: "in", artifactIds: [clean] }], outputs: [{ role: "out", artifacts: [draft("cards.bin")] }] })).outputIds["cards.bin"];
    const tagsOf = async (id: string) => (await gql(`query($id: ID!) { artifact(id: $id) { policyTags { tag level depth inherited origin { target { artifactId } } } } }`, { id })).artifact.policyTags;
    expect(await tagsOf(raw)).toEqual([{ tag: "PCI", level: "ARTIFACT", depth: 0, inherited: false, origin: { target: { artifactId: raw } } }]);
    expect(await tagsOf(clean)).toEqual([{ tag: "PCI", level: "ARTIFACT", depth: 1, inherited: true, origin: { target: { artifactId: raw } } }]);
    expect(await tagsOf(model)).toEqual([{ tag: "PCI", level: "ARTIFACT", depth: 2, inherited: true, origin: { target: { artifactId: raw } } }]);
  });

  test("OpenLineage's tags facet (TagsDatasetFacet, with field) becomes policy tags with their source, and they propagate", async () => {
    const tagsFacet = { tags: { tags: [{ key: "PII", value: "true", source: "DBT CORE", field: "email" }, { key: "CONFIDENTIAL", value: "internal", source: "USER" }, { key: "PCI", value: "false", source: "DBT CORE", field: "id" }] } };
    await ingest(
      t,
      hopEvent("dbt", "load", [], { name: "crm.users", fields: ["id", "email"], facets: tagsFacet }, []),
      hopEvent("dbt", "mail", [{ name: "crm.users", fields: ["id", "email"] }], { name: "mail.list", fields: ["user_id", "address"] }, [["user_id", "crm.users", "id", "DIRECT"], ["address", "crm.users", "email", "DIRECT"]]),
    );
    const users = await latestVersionId(t, "dbt", "crm.users");
    const assignments = await t.app.database.prisma.policyTagAssignment.findMany({ where: { artifactId: users }, orderBy: { tag: "asc" } });
    expect(assignments.map((a) => ({ tag: a.tag, nodeKind: a.nodeKind, field: a.field, source: a.source, reportedSource: a.reportedSource, value: a.value }))).toEqual([
      { tag: "CONFIDENTIAL", nodeKind: "ARTIFACT", field: "", source: "OPENLINEAGE", reportedSource: "USER", value: "internal" },
      { tag: "PII", nodeKind: "COLUMN", field: "email", source: "OPENLINEAGE", reportedSource: "DBT CORE", value: "true" },
    ]);
    const names = new Map([[users, "crm.users"], [await latestVersionId(t, "dbt", "mail.list"), "mail.list"]]);
    expect(await columnTags(t, "dbt", "crm.users", names)).toEqual({ id: ["CONFIDENTIAL@0<-crm.users.*"], email: ["CONFIDENTIAL@0<-crm.users.*", "PII@0<-crm.users.email"] });
    // The column tag flows along column edges; the artifact's along wasDerivedFrom (mail.list derives from crm.users).
    expect(await columnTags(t, "dbt", "mail.list", names)).toEqual({ user_id: ["CONFIDENTIAL@1<-crm.users.*"], address: ["CONFIDENTIAL@1<-crm.users.*", "PII@1<-crm.users.email"] });
  });

  describe("bad input is a typed error naming the field, and writes nothing", () => {
    const cases: [string, string, Record<string, unknown>, string, string][] = [
      ["an unknown column", TAG_COLUMN, { input: { column: { namespace: "w", name: "crm.customers", field: "nope" }, tag: "PII", reason: "x" } }, "NOT_FOUND", "field"],
      ["an unknown dataset", TAG_COLUMN, { input: { column: { namespace: "w", name: "crm.nothing", field: "id" }, tag: "PII", reason: "x" } }, "NOT_FOUND", "name"],
      ["both an id and a name", TAG_COLUMN, { input: { column: { artifactId: "art_x", namespace: "w", name: "crm.customers", field: "id" }, tag: "PII", reason: "x" } }, "INVALID_ARGUMENT", "namespace"],
      ["a malformed tag", TAG_COLUMN, { input: { column: { namespace: "w", name: "crm.customers", field: "id" }, tag: "P I I", reason: "x" } }, "INVALID_ARGUMENT", "tag"],
      ["an empty reason", TAG_COLUMN, { input: { column: { namespace: "w", name: "crm.customers", field: "id" }, tag: "PII", reason: "  " } }, "INVALID_ARGUMENT", "reason"],
      ["a malformed artifact id", TAG_ARTIFACT, { input: { artifactId: "nope", tag: "PII", reason: "x" } }, "INVALID_ID", "artifactId"],
      ["an unknown artifact", TAG_ARTIFACT, { input: { artifactId: "art_0000000000000000000000000000000000000000", tag: "PII", reason: "x" } }, "NOT_FOUND", "artifactId"],
      ["a downgrade of an assigned tag", DOWNGRADE, { input: { target: { namespace: "w", name: "crm.customers", field: "tax_id" }, tag: "PII", reason: "x" } }, "TAG_NOT_INHERITED", "tag"],
      ["a downgrade of a tag not held", DOWNGRADE, { input: { target: { namespace: "w", name: "crm.customers", field: "id" }, tag: "PII", reason: "x" } }, "TAG_NOT_INHERITED", "tag"],
      ["a second downgrade", DOWNGRADE, { input: { target: { namespace: "w", name: "marts.stats", field: "tax_bucket" }, tag: "PII", reason: "x" } }, "TAG_NOT_INHERITED", "tag"],
      ["a downgrade of an unknown column", DOWNGRADE, { input: { target: { namespace: "w", name: "marts.stats", field: "nope" }, tag: "PII", reason: "x" } }, "NOT_FOUND", "field"],
    ];
    test.each(cases)("%s", async (_name, query, variables, code, field) => {
      const before = await allCounts(t);
      const res = await t.gqlAs(t.adminToken, query, variables);
      expect(errorCodes(res)).toEqual([code]);
      expect(res.errors![0].extensions!.field).toBe(field);
      expect(JSON.stringify(res.errors)).not.toMatch(/stack|at .*\.ts:/);
      // A refusal is audited (an audit entry of its own); nothing else is written.
      expect({ ...(await allCounts(t)), auditEvents: before.auditEvents }).toEqual(before);
    });

    test("the tag mutations need the admin scope", async () => {
      const writer = await t.issue(["read", "write"], { name: "writer" });
      const before = await allCounts(t);
      const res = await t.gqlAs(writer, TAG_COLUMN, { input: { column: { namespace: "w", name: "crm.customers", field: "id" }, tag: "PII", reason: "x" } });
      expect(errorCodes(res)).toEqual(["FORBIDDEN"]);
      expect({ ...(await allCounts(t)), auditEvents: before.auditEvents, apiTokens: before.apiTokens }).toEqual(before);
    });
  });
});
