import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { ingest } from "../support/compliance";
import { dataset, runEvent } from "../support/openlineage";

/**
 * What a token may not read it cannot find: a column's description, which its policy tags guard,
 * is searched only for a token holding the clearance for each of them.
 */
describe("search and redaction", () => {
  let t: TokenTestApp;
  let reader: string;
  let cleared: string;

  const SEARCH = `query($q: String!) { search(query: $q) { totalCount edges { node { kind label rank matched { field text } } } } }`;
  const hits = async (token: string, q: string) => {
    const res = await t.gqlAs(token, SEARCH, { q });
    expect(res.errors).toBeUndefined();
    return { total: res.data!.search.totalCount, hits: res.data!.search.edges.map((e: any) => `${e.node.rank} ${e.node.label} ${e.node.matched.field}: ${e.node.matched.text}`) };
  };

  beforeAll(async () => {
    t = await createTokenTestApp();
    reader = await t.issue(["read"]);
    cleared = await t.issue(["read", "clearance:PII"]);
    const fields = [
      { name: "ssn_hash", type: "TEXT", description: "Salted hash of the social security number" },
      { name: "ship_to", type: "TEXT", description: "Where parcels go: a street address" },
      { name: "security_level", type: "INT", description: "Access level of the account" },
    ];
    await ingest(t, runEvent({ job: { namespace: "crm", name: "load_customers" }, inputs: [], outputs: [dataset("postgres://crm", "public.customers", { schema: { fields } })] }));
    const tagged = await t.gql(`mutation { tagColumn(input: { column: { namespace: "postgres://crm", name: "public.customers", field: "ssn_hash" }, tag: "PII", reason: "national ids" }) { created } }`);
    expect(tagged.errors).toBeUndefined();
  });
  afterAll(() => t.close());

  test("a token without the clearance cannot find a redacted description by searching for it; one with it can", async () => {
    expect(await hits(reader, "social security")).toEqual({ total: 0, hits: [] });
    expect(await hits(cleared, "social security")).toEqual({
      total: 1,
      hits: ["WORD postgres://crm/public.customers.ssn_hash DESCRIPTION: Salted hash of the social security number"],
    });
    // The same description is what the API itself redacts for the one token and shows the other.
    const description = `{ dataset(namespace: "postgres://crm", name: "public.customers") { columns { field description } } }`;
    const column = async (token: string) => (await t.gqlAs(token, description)).data!.dataset.columns.find((c: any) => c.field === "ssn_hash").description;
    expect([await column(reader), await column(cleared)]).toEqual([null, "Salted hash of the social security number"]);
  });

  test("descriptions no tag guards are found by every token; names are found whatever guards the description", async () => {
    for (const token of [reader, cleared]) expect((await hits(token, "street address")).hits).toEqual(["WORD postgres://crm/public.customers.ship_to DESCRIPTION: Where parcels go: a street address"]);
    // "security" is in a name (security_level) and in the guarded description: the reader finds the name only.
    expect((await hits(reader, "security")).hits).toEqual(["PREFIX postgres://crm/public.customers.security_level KEYWORDS: security_level"]);
    expect((await hits(cleared, "security")).hits).toEqual([
      "PREFIX postgres://crm/public.customers.security_level KEYWORDS: security_level",
      "WORD postgres://crm/public.customers.ssn_hash DESCRIPTION: Salted hash of the social security number",
    ]);
  });

  test("nor by its words in another order (WORDS): the reader finds nothing, the cleared token the description", async () => {
    expect(await hits(reader, "security social")).toEqual({ total: 0, hits: [] });
    expect(await hits(cleared, "security social")).toEqual({
      total: 1,
      hits: ["WORDS postgres://crm/public.customers.ssn_hash DESCRIPTION: Salted hash of the social security number"],
    });
    // A name found by its words is found by every token; the guarded description beside it only by the cleared one.
    expect((await hits(reader, "level security")).hits).toEqual(["WORDS postgres://crm/public.customers.security_level LABEL: postgres://crm/public.customers.security_level"]);
    expect((await hits(cleared, "number salted")).hits).toEqual(["WORDS postgres://crm/public.customers.ssn_hash DESCRIPTION: Salted hash of the social security number"]);
    expect((await hits(reader, "number salted")).hits).toEqual([]);
  });

  test("autocomplete keeps the same rule: a guarded description is no suggestion for a token without the clearance", async () => {
    const AUTOCOMPLETE = `query($q: String!) { autocomplete(prefix: $q, first: 50) { label matched { field text } } }`;
    const suggested = async (token: string, q: string) => {
      const res = await t.gqlAs(token, AUTOCOMPLETE, { q });
      expect(res.errors).toBeUndefined();
      return res.data!.autocomplete.map((h: any) => `${h.label} ${h.matched.field}`);
    };
    expect(await suggested(reader, "social sec")).toEqual([]);
    expect(await suggested(cleared, "social sec")).toEqual(["postgres://crm/public.customers.ssn_hash DESCRIPTION"]);
  });

  test("a column that holds the tag by propagation (column lineage from a tagged one) guards its own description too", async () => {
    const lineage = { fields: { ssn_key: { inputFields: [{ namespace: "postgres://crm", name: "public.customers", field: "ssn_hash", transformations: [{ type: "DIRECT", subtype: "TRANSFORMATION" }] }] } } };
    const fields = [{ name: "ssn_key", type: "TEXT", description: "Join key derived from the national identifier" }];
    await ingest(
      t,
      runEvent({
        job: { namespace: "crm", name: "derive_keys" },
        inputs: [dataset("postgres://crm", "public.customers")],
        outputs: [dataset("postgres://crm", "public.customer_keys", { schema: { fields }, columnLineage: lineage })],
      }),
    );
    const tags = await t.gql(`{ dataset(namespace: "postgres://crm", name: "public.customer_keys") { columns { field policyTags { tag } } } }`);
    expect(tags.data!.dataset.columns).toEqual([{ field: "ssn_key", policyTags: [expect.objectContaining({ tag: "PII" })] }]);
    expect(await hits(reader, "national identifier")).toEqual({ total: 0, hits: [] });
    expect((await hits(cleared, "national identifier")).hits).toEqual(["WORD postgres://crm/public.customer_keys.ssn_key DESCRIPTION: Join key derived from the national identifier"]);
  });

  test("a tag given after the description was indexed guards it from then on", async () => {
    expect((await hits(reader, "parcels")).hits).toHaveLength(1);
    await t.gql(`mutation { tagColumn(input: { column: { namespace: "postgres://crm", name: "public.customers", field: "ship_to" }, tag: "PII", reason: "home addresses" }) { created } }`);
    expect(await hits(reader, "parcels")).toEqual({ total: 0, hits: [] });
    expect((await hits(cleared, "parcels")).hits).toHaveLength(1);
  });
});
