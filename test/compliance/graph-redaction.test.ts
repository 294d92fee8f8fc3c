import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { hopEvent, ingest } from "../support/compliance";
import { dataset, runEvent } from "../support/openlineage";

/**
 * The lineage graph API shows tagged columns and artifacts as every other field does: a node's
 * column and artifact resolve through the same types, so a token without `clearance:<TAG>` sees
 * their guarded details as null, named in `redacted` — in lineageGraph, expand and impact alike.
 */
describe("policy-tag redaction in the lineage graph API", () => {
  let t: TokenTestApp;
  let reader: string;
  let cleared: string;
  let users: string;
  let list: string;

  beforeAll(async () => {
    t = await createTokenTestApp();
    reader = await t.issue(["read"], { name: "analyst" });
    cleared = await t.issue(["read", "clearance:PII"], { name: "privacy-officer" });
    const usersDataset = dataset("crm", "crm.users", {
      schema: { fields: [{ name: "email", type: "string", description: "the customer's e-mail address" }, { name: "country", type: "string", description: "ISO country" }] },
      tags: { tags: [{ key: "PII", value: "true", source: "DBT CORE", field: "email" }] },
    });
    await ingest(t, runEvent({ job: { namespace: "crm", name: "load" }, inputs: [], outputs: [usersDataset] }));
    await ingest(t, hopEvent("crm", "mail", [{ name: "crm.users", fields: ["email", "country"] }], { name: "mail.list", fields: ["address"] }, [["address", "crm.users", "email", "DIRECT"]]));
    const ids = await t.gqlAs(t.adminToken, `{ users: dataset(namespace: "crm", name: "crm.users") { latestVersion { id } } list: dataset(namespace: "crm", name: "mail.list") { latestVersion { id } } }`);
    users = ids.data!.users.latestVersion.id;
    list = ids.data!.list.latestVersion.id;
    const tagged = await t.gqlAs(t.adminToken, `mutation($input: TagArtifactInput!) { tagArtifact(input: $input) { created } }`, { input: { artifactId: list, tag: "CONFIDENTIAL", reason: "mailing list" } });
    expect(tagged.errors).toBeUndefined();
  });
  afterAll(() => t.close());

  const NODE = `id kind label artifact { id metadata redacted } column { field description redacted }`;

  test("lineageGraph with columns: without clearance the tagged columns' descriptions and the tagged artifact's metadata are null and marked redacted", async () => {
    const query = `query($r: [ID!]!) { lineageGraph(roots: $r, direction: UPSTREAM, columns: true) { nodes { ${NODE} } } }`;
    const asReader = await t.gqlAs(reader, query, { r: [list] });
    expect(asReader.errors).toBeUndefined();
    const nodes = asReader.data!.lineageGraph.nodes;
    const email = nodes.find((n: any) => n.id === `col:${users}:email`);
    expect(email.column).toEqual({ field: "email", description: null, redacted: ["description", "sampleValues", "facets"] });
    const country = nodes.find((n: any) => n.id === `col:${users}:country`);
    expect(country.column.description).toBe("ISO country");
    expect(nodes.find((n: any) => n.id === users).artifact).toMatchObject({ id: users, redacted: [] });
    expect(nodes.find((n: any) => n.id === list).artifact).toMatchObject({ id: list, metadata: null, redacted: ["metadata"] });
    // the address inherits PII from email through the DIRECT edge (and CONFIDENTIAL from its version)
    expect(nodes.find((n: any) => n.id === `col:${list}:address`).column.redacted).toEqual(["description", "sampleValues", "facets"]);
    expect(JSON.stringify(asReader)).not.toMatch(/e-mail address/);

    const asCleared = await t.gqlAs(cleared, query, { r: [list] });
    expect(asCleared.data!.lineageGraph.nodes.find((n: any) => n.id === `col:${users}:email`).column).toEqual({ field: "email", description: "the customer's e-mail address", redacted: [] });
  });

  test("expand and impact nodes are redacted the same way", async () => {
    const expand = await t.gqlAs(reader, `query($n: ID!) { expand(nodeId: $n, direction: UPSTREAM, columns: true) { nodes { ${NODE} } } }`, { n: `col:${list}:address` });
    expect(expand.errors).toBeUndefined();
    expect(expand.data!.expand.nodes.find((n: any) => n.id === `col:${users}:email`).column).toEqual({ field: "email", description: null, redacted: ["description", "sampleValues", "facets"] });
    const impact = await t.gqlAs(reader, `query($id: ID!) { impact(id: $id) { byDepth { nodes { edges { node { ${NODE} } } } } } }`, { id: users });
    expect(impact.errors).toBeUndefined();
    const nodes = impact.data!.impact.byDepth.flatMap((d: any) => d.nodes.edges.map((e: any) => e.node));
    expect(nodes.find((n: any) => n.id === list).artifact).toMatchObject({ metadata: null, redacted: ["metadata"] });
  });

  test("a token without read scope cannot ask at all", async () => {
    const writer = await t.issue(["clearance:PII"], { name: "clearance only" });
    const res = await t.gqlAs(writer, `query($r: [ID!]!) { lineageGraph(roots: $r) { truncated } }`, { r: [list] });
    expect(res.errors![0].extensions!.code).toBe("FORBIDDEN");
  });
});
