import { tableCounts } from "../support/recording";
import { dataset, postEvent, postLineage, runEvent } from "../support/openlineage";
import { createTestApp, type TestApp } from "../support/test-app";

// Found by the fuzz suite (issue 13) on PostgreSQL: a U+0000 in a schema field's description (or an
// error message, a facet …) reached a text column, which PostgreSQL refuses, and the route answered
// HTTP 500 INTERNAL_SERVER_ERROR. Such an event is INVALID_EVENT, pointing at the string, on both databases.

describe("an OpenLineage event holding U+0000", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const withDescription = (description: string) =>
    runEvent({ outputs: [dataset("pg", "public.customers", { schema: { _producer: "https://example.org/p", _schemaURL: "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json", fields: [{ name: "id", description }] } })] });

  test("is refused alone: 400 INVALID_EVENT with the pointer of the string, nothing written", async () => {
    const before = await tableCounts(t);
    const answer = await postEvent(t, withDescription("the key\u0000"));
    expect([answer.status, answer.json.error]).toEqual([
      400,
      {
        code: "INVALID_EVENT",
        pointer: "/outputs/0/facets/schema/fields/0/description",
        reason: "contains the control character U+0000 at index 7, which provgraph does not store",
        message: "/outputs/0/facets/schema/fields/0/description: contains the control character U+0000 at index 7, which provgraph does not store",
      },
    ]);
    expect(await tableCounts(t)).toEqual(before);
  });

  test("in a batch, only that event is refused; in a key, the key is pointed at", async () => {
    const failing = runEvent({ run: { runId: "2f1a4a0e-8c1e-4c1a-9f6e-0a1b2c3d4e5f", facets: { errorMessage: { _producer: "https://example.org/p", _schemaURL: "https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json", message: "boom\u0000", programmingLanguage: "python" } } }, eventType: "FAIL" });
    const keyed = runEvent({ job: { namespace: "a", name: "b", facets: { "x\u0000": {} } } });
    const answer = await postLineage(t, JSON.stringify([withDescription("fine"), failing, keyed]), { "content-type": "application/json" }, "/api/v1/lineage/batch");
    expect([answer.status, answer.json.results.map((r: any) => [r.status, r.error?.code ?? null, r.error?.pointer ?? null])]).toEqual([
      207,
      [
        ["STORED", null, null],
        ["REFUSED", "INVALID_EVENT", "/run/facets/errorMessage/message"],
        ["REFUSED", "INVALID_EVENT", "/job/facets/x\u0000"],
      ],
    ]);
  });

  // PostgreSQL stores U+FFFD for it (its driver's UTF-8 encoding, and now the JSON rows of the hot
  // insert path too); better-sqlite3 writes the surrogate's three bytes, read back as three U+FFFD.
  test("a lone surrogate in free text (a description) is stored as the driver encodes it: 201, not a server fault", async () => {
    const answer = await postEvent(t, withDescription("a\ud800b"));
    expect(answer.status).toBe(201);
    const columns = await t.app.database.prisma.datasetColumn.findMany({ where: { field: "id", description: { startsWith: "a" } }, select: { description: true } });
    expect(columns.map((c) => c.description)).toEqual([t.app.database.provider === "postgres" ? "a\ufffdb" : "a\ufffd\ufffd\ufffdb"]);
  });

  // Found by the fuzz suite on PostgreSQL: the search entry of a column seen for the first time (its
  // description is the entry's guarded text) went to PostgreSQL as JSON with the surrogate escaped, which
  // its json parser refuses: the event was REFUSED with INTERNAL_SERVER_ERROR.
  test("a lone surrogate in the description of a column seen for the first time (a new search entry): 201, and the column is found", async () => {
    const event = runEvent({ outputs: [dataset("pg", "public.orders", { schema: { _producer: "https://example.org/p", _schemaURL: "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json", fields: [{ name: "amount", description: "Total amount (AUD)\ud800" }] } })] });
    const answer = await postEvent(t, event);
    expect(answer.status).toBe(201);
    const found = await t.gql(`{ search(query: "public.orders.amount", kinds: [COLUMN]) { edges { node { label } } } }`);
    expect(found.errors).toBeUndefined();
    expect(found.data!.search.edges.map((e: any) => e.node.label)).toContain("pg/public.orders.amount");
  });
});
