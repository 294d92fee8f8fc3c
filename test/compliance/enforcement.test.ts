import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { hopEvent, ingest, latestVersionId } from "../support/compliance";
import { dataset, runEvent } from "../support/openlineage";

/**
 * Enforcement: a tagged column's description, sample values and facets (an artifact's metadata, a
 * stored event) are seen only with `clearance:<TAG>` for every tag it holds; otherwise they answer
 * null and `redacted` names them — the same query, no error.
 */
describe("policy-tag enforcement (redaction)", () => {
  let t: TokenTestApp;
  let reader: string;
  let cleared: string;
  let otherClearance: string;
  beforeAll(async () => {
    t = await createTokenTestApp();
    reader = await t.issue(["read"], { name: "analyst" });
    cleared = await t.issue(["read", "clearance:PII"], { name: "privacy-officer" });
    otherClearance = await t.issue(["read", "clearance:PCI"], { name: "card-team" });
    const users = dataset("crm", "crm.users", {
      schema: { fields: [{ name: "email", type: "string", description: "the customer's e-mail address" }, { name: "country", type: "string", description: "ISO country" }] },
      tags: { tags: [{ key: "PII", value: "true", source: "DBT CORE", field: "email" }] },
      provgraph_columnSamples: { fields: { email: ["ann@example.com", "bob@example.com"], country: ["NL", "DE"] } },
    });
    await ingest(t, runEvent({ job: { namespace: "crm", name: "load" }, inputs: [], outputs: [users] }));
    await ingest(t, hopEvent("crm", "mail", [{ name: "crm.users", fields: ["email", "country"] }], { name: "mail.list", fields: ["address"] }, [["address", "crm.users", "email", "DIRECT"]]));
  });
  afterAll(() => t.close());

  const QUERY = `query($name: String!) { dataset(namespace: "crm", name: $name) { columns { field description type sampleValues facets redacted policyTags { tag } } } }`;
  const columnsAs = async (token: string, name = "crm.users") => {
    const res = await t.gqlAs(token, QUERY, { name });
    return res;
  };

  test("without clearance:PII the tagged column's description, sampleValues and facets are null and marked redacted; the untagged column is whole; no error", async () => {
    const res = await columnsAs(reader);
    expect(res.errors).toBeUndefined();
    expect(res.status).toBe(200);
    expect(res.data!.dataset.columns).toEqual([
      { field: "email", description: null, type: "string", sampleValues: null, facets: null, redacted: ["description", "sampleValues", "facets"], policyTags: [{ tag: "PII" }] },
      {
        field: "country",
        description: "ISO country",
        type: "string",
        sampleValues: ["NL", "DE"],
        facets: { schema: { type: "string", description: "ISO country" }, provgraph_columnSamples: ["NL", "DE"] },
        redacted: [],
        policyTags: [],
      },
    ]);
    // The answer says no more than the column's name (and that it is tagged): no sample value, no description anywhere.
    expect(JSON.stringify(res)).not.toMatch(/example\.com|e-mail address/);
  });

  test("with clearance:PII the same query answers the values", async () => {
    const res = await columnsAs(cleared);
    expect(res.errors).toBeUndefined();
    expect(res.data!.dataset.columns[0]).toEqual({
      field: "email",
      description: "the customer's e-mail address",
      type: "string",
      sampleValues: ["ann@example.com", "bob@example.com"],
      facets: {
        schema: { type: "string", description: "the customer's e-mail address" },
        tags: [{ key: "PII", value: "true", source: "DBT CORE" }],
        provgraph_columnSamples: ["ann@example.com", "bob@example.com"],
      },
      redacted: [],
      policyTags: [{ tag: "PII" }],
    });
  });

  test("another clearance does not stand in for PII; an inherited tag guards the descendant the same way", async () => {
    const other = await columnsAs(otherClearance);
    expect(other.errors).toBeUndefined();
    expect(other.data!.dataset.columns[0]).toMatchObject({ field: "email", description: null, sampleValues: null, facets: null, redacted: ["description", "sampleValues", "facets"] });
    const descendant = await columnsAs(reader, "mail.list");
    expect(descendant.errors).toBeUndefined();
    expect(descendant.data!.dataset.columns).toEqual([{ field: "address", description: null, type: null, sampleValues: null, facets: null, redacted: ["description", "sampleValues", "facets"], policyTags: [{ tag: "PII" }] }]);
    expect((await columnsAs(cleared, "mail.list")).data!.dataset.columns[0]).toMatchObject({ field: "address", facets: { schema: {} }, redacted: [] });
  });

  test("an artifact's metadata and a stored event that names a tagged dataset are redacted the same way", async () => {
    const users = await latestVersionId(t, "crm", "crm.users");
    const ARTIFACT = `query($id: ID!) { artifact(id: $id) { id metadata redacted } }`;
    const tag = await t.gqlAs(t.adminToken, `mutation($input: TagArtifactInput!) { tagArtifact(input: $input) { created } }`, { input: { artifactId: users, tag: "CONFIDENTIAL", reason: "customer master" } });
    expect(tag.errors).toBeUndefined();
    const hidden = await t.gqlAs(cleared, ARTIFACT, { id: users });
    expect(hidden.errors).toBeUndefined();
    expect(hidden.data!.artifact).toEqual({ id: users, metadata: null, redacted: ["metadata"] });
    const both = await t.issue(["read", "clearance:PII", "clearance:CONFIDENTIAL"], { name: "both" });
    expect((await t.gqlAs(both, ARTIFACT, { id: users })).data!.artifact.redacted).toEqual([]);

    const EVENTS = `{ openLineageEvents(first: 10, job: { namespace: "crm", name: "load" }) { edges { node { producer event redacted } } } }`;
    const events = await t.gqlAs(reader, EVENTS);
    expect(events.errors).toBeUndefined();
    expect(events.data!.openLineageEvents.edges.map((e: any) => e.node)).toEqual([
      { producer: expect.any(String), event: null, redacted: ["event"] },
    ]);
    const seen = await t.gqlAs(both, EVENTS);
    expect(seen.data!.openLineageEvents.edges.map((e: any) => e.node.redacted)).toEqual([[]]);
    expect(JSON.stringify(seen.data)).toMatch(/ann@example\.com/);
  });
});
