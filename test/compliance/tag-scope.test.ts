import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { allHoldings, columnTags, hopEvent, ingest, latestVersionId } from "../support/compliance";
import { errorCodes } from "../support/test-app";

/**
 * Policy that survives the next version, and opaque steps that keep it:
 *  - a tag set on a dataset's column (tagColumn's default scope, DATASET) holds for every version of
 *    that dataset — those recorded before and those recorded after — and flows from each; a tag on
 *    one version (scope VERSION) stays on that version;
 *  - a run that reports no column lineage for its output (a UDF) is an opaque step: the output as a
 *    whole holds every tag of its inputs, marked throughOpaqueStep; a downgrade still removes it,
 *    with its audit entry;
 *  - what the incremental flow keeps equals the rule derived afresh (the integrity invariant).
 */
const TAG_COLUMN = `mutation($input: TagColumnInput!) { tagColumn(input: $input) { created holders assignment { tag target { scope artifactId namespace name field } } } }`;
const DOWNGRADE = `mutation($input: DowngradeTagInput!) { downgradeTag(input: $input) { tag reason downgradedBy target { artifactId field } } }`;
const TAG_AUDIT = `query { tagAudit(tag: "PII", first: 10) { edges { node { reason downgradedBy target { artifactId field } } } } }`;
const COLUMNS = `query($id: ID!) { artifact(id: $id) { columns { field sampleValues redacted } } }`;

/** One night's load of crm.customers (its version named `night`, with sample values), and staging built from it. */
function night(ns: string, version: string) {
  const customers = (facets: Record<string, unknown> = {}) => ({ name: "crm.customers", fields: ["id", "tax_id"], facets: { version: { datasetVersion: version }, ...facets } });
  return [
    hopEvent(ns, "load", [], customers({ provgraph_columnSamples: { fields: { tax_id: [`NL-${version}-0417`], id: [`c-${version}`] } } }), []),
    hopEvent(ns, "stage", [customers()], { name: "staging.customers", fields: ["id", "tax_ref"], facets: { version: { datasetVersion: version } } }, [
      ["id", "crm.customers", "id", "DIRECT"],
      ["tax_ref", "crm.customers", "tax_id", "DIRECT"],
    ]),
  ];
}

describe("tag scope across versions, and opaque steps", () => {
  let t: TokenTestApp;
  let analyst: string;
  beforeAll(async () => {
    t = await createTokenTestApp();
    analyst = await t.issue(["read"], { name: "analyst" });
  });
  afterAll(() => t.close());

  const gql = async (query: string, variables: Record<string, unknown> = {}, token: string = t.adminToken) => {
    const res = await t.gqlAs(token, query, variables);
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data!;
  };
  const versionId = async (ns: string, name: string, version: string): Promise<string> => {
    const versions = (await gql(`query($ns: String!, $name: String!) { dataset(namespace: $ns, name: $name) { versions { id dataset { version } } } }`, { ns, name })).dataset.versions;
    return versions.find((v: any) => v.dataset.version === version).id;
  };
  const tagsOf = async (ns: string, name: string, version: string) => {
    const id = await versionId(ns, name, version);
    const res = await gql(`query($id: ID!) { artifact(id: $id) { columns { field policyTags { tag depth throughOpaqueStep origin { target { scope name field } } } } } }`, { id });
    return Object.fromEntries(res.artifact.columns.filter((c: any) => c.policyTags.length > 0).map((c: any) => [c.field, c.policyTags.map((h: any) => `${h.tag}@${h.depth}${h.throughOpaqueStep ? "~" : ""}<-${h.origin.target.scope}:${h.origin.target.name ?? "version"}.${h.origin.target.field}`)]));
  };

  test("a tag on a dataset's column holds for the versions recorded before it and after it, flows from each, and guards each version's sample values", async () => {
    await ingest(t, ...night("nightly", "2026-02-27"));
    const tagged = await gql(TAG_COLUMN, { input: { column: { namespace: "nightly", name: "crm.customers", field: "tax_id" }, tag: "PII", reason: "national tax id" } });
    expect(tagged.tagColumn).toEqual({ created: true, holders: 2, assignment: { tag: "PII", target: { scope: "DATASET", artifactId: null, namespace: "nightly", name: "crm.customers", field: "tax_id" } } });

    // The next night: a new version of crm.customers, and the staging table built from it.
    await ingest(t, ...night("nightly", "2026-02-28"));
    for (const version of ["2026-02-27", "2026-02-28"]) {
      expect(await tagsOf("nightly", "crm.customers", version)).toEqual({ tax_id: ["PII@0<-DATASET:crm.customers.tax_id"] });
      expect(await tagsOf("nightly", "staging.customers", version)).toEqual({ tax_ref: ["PII@1<-DATASET:crm.customers.tax_id"] });
    }
    // The new night's tax ids are not readable without clearance:PII; its untagged column is.
    const columns = (await gql(COLUMNS, { id: await versionId("nightly", "crm.customers", "2026-02-28") }, analyst)).artifact.columns;
    expect(columns).toEqual([
      { field: "id", sampleValues: ["c-2026-02-28"], redacted: [] },
      { field: "tax_id", sampleValues: null, redacted: ["description", "sampleValues", "facets"] },
    ]);
  });

  test("scope VERSION tags the one version named; the others and later ones do not hold it", async () => {
    await ingest(t, ...night("once", "v1"), ...night("once", "v2"));
    const tagged = await gql(TAG_COLUMN, { input: { column: { namespace: "once", name: "crm.customers", version: "v1", field: "tax_id" }, tag: "PII", reason: "a one-off extract", scope: "VERSION" } });
    const v1 = await versionId("once", "crm.customers", "v1");
    expect(tagged.tagColumn).toEqual({ created: true, holders: 2, assignment: { tag: "PII", target: { scope: "VERSION", artifactId: v1, namespace: null, name: null, field: "tax_id" } } });
    await ingest(t, ...night("once", "v3"));
    expect(await tagsOf("once", "crm.customers", "v1")).toEqual({ tax_id: ["PII@0<-VERSION:version.tax_id"] });
    expect(await tagsOf("once", "staging.customers", "v1")).toEqual({ tax_ref: ["PII@1<-VERSION:version.tax_id"] });
    for (const version of ["v2", "v3"]) {
      expect(await tagsOf("once", "crm.customers", version)).toEqual({});
      expect(await tagsOf("once", "staging.customers", version)).toEqual({});
    }
  });

  /** features (all PII) → an opaque UDF (no column lineage) → embeddings → a scoring run with column lineage → scores. */
  async function opaqueChain(ns: string) {
    await ingest(t, hopEvent(ns, "features", [], { name: "features.customer", fields: ["tax_id", "email"] }, []));
    for (const field of ["tax_id", "email"]) await gql(TAG_COLUMN, { input: { column: { namespace: ns, name: "features.customer", field }, tag: "PII", reason: "personal features" } });
    await gql(TAG_COLUMN, { input: { column: { namespace: ns, name: "features.customer", field: "email" }, tag: "CONTACT", reason: "reachable" } });
    await ingest(
      t,
      hopEvent(ns, "embed_udf", [{ name: "features.customer", fields: ["tax_id", "email"] }], { name: "index.embeddings", fields: ["vector", "cluster"] }, []),
      hopEvent(ns, "score", [{ name: "index.embeddings", fields: ["vector", "cluster"] }], { name: "risk.scores", fields: ["score", "segment"] }, [["score", "index.embeddings", "vector", "DIRECT"]]),
    );
  }

  test("an opaque step's output holds every tag of its inputs, as a whole, marked throughOpaqueStep; column lineage after it carries the mark on", async () => {
    await opaqueChain("udf");
    const names = new Map<string, string>();
    // PII's nearest origin, ties to the oldest assignment: tax_id's.
    expect(await columnTags(t, "udf", "index.embeddings", names)).toEqual({
      vector: ["CONTACT@1~<-features.customer.email", "PII@1~<-features.customer.tax_id"],
      cluster: ["CONTACT@1~<-features.customer.email", "PII@1~<-features.customer.tax_id"],
    });
    const levels = await gql(`query { dataset(namespace: "udf", name: "index.embeddings") { columns { field policyTags { tag level inherited } } } }`);
    expect(levels.dataset.columns[0].policyTags).toEqual([
      { tag: "CONTACT", level: "VERSION", inherited: true },
      { tag: "PII", level: "VERSION", inherited: true },
    ]);
    // Downstream, the scoring run reported column lineage: only the column it reads from carries the tags on.
    expect(await columnTags(t, "udf", "risk.scores", names)).toEqual({ score: ["CONTACT@2~<-features.customer.email", "PII@2~<-features.customer.tax_id"] });
    // And the UDF's output values are protected like its inputs'.
    const vector = (await gql(`query { dataset(namespace: "udf", name: "index.embeddings") { columns { field redacted } } }`, {}, analyst)).dataset.columns;
    expect(vector).toEqual([
      { field: "vector", redacted: ["description", "sampleValues", "facets"] },
      { field: "cluster", redacted: ["description", "sampleValues", "facets"] },
    ]);
  });

  test("a tag given after the opaque step ran is backfilled through it (write time and backfill agree)", async () => {
    await ingest(t, hopEvent("late", "features", [], { name: "features.customer", fields: ["tax_id"] }, []));
    await ingest(t, hopEvent("late", "embed_udf", [{ name: "features.customer", fields: ["tax_id"] }], { name: "index.embeddings", fields: ["vector"] }, []));
    await gql(TAG_COLUMN, { input: { column: { namespace: "late", name: "features.customer", field: "tax_id" }, tag: "PII", reason: "later" } });
    expect(await columnTags(t, "late", "index.embeddings", new Map())).toEqual({ vector: ["PII@1~<-features.customer.tax_id"] });
  });

  test("a downgrade removes a tag inherited through an opaque step (the output as a whole), with its audit entry; it then stops flowing", async () => {
    await opaqueChain("dg");
    const embeddings = await latestVersionId(t, "dg", "index.embeddings");
    const downgrade = await gql(DOWNGRADE, { input: { target: { namespace: "dg", name: "index.embeddings" }, tag: "PII", reason: "embeddings are salted and not invertible" } });
    expect(downgrade.downgradeTag).toEqual({ tag: "PII", reason: "embeddings are salted and not invertible", downgradedBy: "bootstrap", target: { artifactId: embeddings, field: null } });
    expect((await gql(TAG_AUDIT)).tagAudit.edges.map((e: any) => e.node)).toContainEqual({ reason: "embeddings are salted and not invertible", downgradedBy: "bootstrap", target: { artifactId: embeddings, field: null } });
    expect(await columnTags(t, "dg", "index.embeddings", new Map())).toEqual({ vector: ["CONTACT@1~<-features.customer.email"], cluster: ["CONTACT@1~<-features.customer.email"] });
    expect(await columnTags(t, "dg", "risk.scores", new Map())).toEqual({ score: ["CONTACT@2~<-features.customer.email"] });
    // A second downgrade finds nothing to remove.
    const again = await t.gqlAs(t.adminToken, DOWNGRADE, { input: { target: { namespace: "dg", name: "index.embeddings" }, tag: "PII", reason: "again" } });
    expect(errorCodes(again)).toEqual(["TAG_NOT_INHERITED"]);
  });

  test("one column downgraded for a tag its version holds as a whole loses it, on its tags and on what it guards; its sibling keeps it", async () => {
    await opaqueChain("dgc");
    const embeddings = await latestVersionId(t, "dgc", "index.embeddings");
    const downgrade = await gql(DOWNGRADE, { input: { target: { namespace: "dgc", name: "index.embeddings", field: "vector" }, tag: "PII", reason: "vectors are salted" } });
    expect(downgrade.downgradeTag).toEqual({ tag: "PII", reason: "vectors are salted", downgradedBy: "bootstrap", target: { artifactId: embeddings, field: "vector" } });
    expect(await columnTags(t, "dgc", "index.embeddings", new Map())).toEqual({
      vector: ["CONTACT@1~<-features.customer.email"],
      cluster: ["CONTACT@1~<-features.customer.email", "PII@1~<-features.customer.tax_id"],
    });
    // The tags a column guards with (redaction's read) agree with the tags it shows.
    const guarded = await t.app.services.compliance.tagReader.tagsOf([
      { kind: "COLUMN", artifactId: embeddings, field: "vector" },
      { kind: "COLUMN", artifactId: embeddings, field: "cluster" },
    ]);
    expect(guarded).toEqual([["CONTACT"], ["CONTACT", "PII"]]);
  });

  test("what the incremental flow kept (new versions, opaque steps, downgrades) equals the rule derived afresh; the integrity invariant holds", async () => {
    const kept = await allHoldings(t);
    const report = await gql(`query { integrityReport { invariants { name violations sample { subject detail } } } }`);
    expect(report.integrityReport.invariants.find((i: any) => i.name === "inherited-policy-tags")).toEqual({ name: "inherited-policy-tags", violations: 0, sample: [] });
    await t.app.services.compliance.tags.recompute();
    expect(await allHoldings(t)).toEqual(kept);
  });
});
