import { parse } from "graphql";
import { estimateCost } from "../../src/limits/query-cost";
import { schema } from "../../src/schema/index";
import { hopEvent, ingest } from "../support/compliance";
import { draft, recordOk, registerOperation } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * A client's first, natural query fits the cost limit: closures (lineage, provJson, columnLineage)
 * return 1,000 items when `first` is not given (50,000 at most, as documented), `truncated` saying
 * when there is more; and a query that does not fit is told which argument to lower.
 */
describe("closure defaults sized for interactive use, and QUERY_TOO_COSTLY naming the argument to lower", () => {
  let t: TestApp;
  let source: string;
  const WIDE = 1_001;

  beforeAll(async () => {
    t = await createTestApp();
    // One column built from 1,001 columns, and one artifact with 1,001 descendants.
    const fields = Array.from({ length: WIDE }, (_, i) => `c${i}`);
    await ingest(t, hopEvent("shop", "sum", [{ name: "raw", fields }], { name: "totals", fields: ["total"] }, fields.map((field) => ["total", "raw", field, "DIRECT"] as ["total", string, string, "DIRECT"])));
    await registerOperation(t, { name: "gen", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    await registerOperation(t, { name: "split", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "part", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] });
    source = (await recordOk(t, { operation: "gen", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: [draft("src.csv")] }] })).outputIds["src.csv"];
    const parts = Array.from({ length: WIDE }, (_, i) => draft(`src_part${i}.csv`));
    await recordOk(t, { operation: "split", operationVersion: "1", inputs: [{ role: "data", artifactIds: [source] }], outputs: [{ role: "part", artifacts: parts }] });
  });
  afterAll(() => t.close());

  const FRONT_END = `columnLineage(namespace: "shop", name: "totals", field: "total") {
    truncated nodes { field depth artifact { id originalName producedBy { runId status outputs { role artifact { id } } } } } edges { type subtype run { runId status } } }`;

  test("a column-lineage query with its runs, and a front end's richer one, pass with no `first` (the latter would cost 4,420,002 at 10,000 items)", async () => {
    const simple = await t.gql(`{ columnLineage(namespace: "shop", name: "totals", field: "total") { nodes { artifact { producedBy { runId } } } edges { run { runId } } } }`);
    expect(simple.errors).toBeUndefined();
    expect(simple.data!.columnLineage.nodes).toHaveLength(1_000);
    expect(estimateCost(schema, parse(`{ ${FRONT_END.replace('field: "total")', 'field: "total", first: 10000)')} }`))).toBe(4_420_002);
    const frontEnd = await t.gql(`{ ${FRONT_END} }`);
    expect(frontEnd.errors).toBeUndefined();
    expect(frontEnd.data!.columnLineage.truncated).toBe(true);
  });

  test("without `first` a closure returns the nearest 1,000 and says it is truncated; `first` up to 50,000 returns more", async () => {
    const lineage = (first: string) => t.gql(`{ lineage(artifactId: "${source}", direction: DOWNSTREAM${first}) { truncated nodes { artifactId } } }`);
    expect(await lineage("").then((r) => [r.data!.lineage.nodes.length, r.data!.lineage.truncated])).toEqual([1_000, true]);
    expect(await lineage(", first: 50000").then((r) => [r.data!.lineage.nodes.length, r.data!.lineage.truncated])).toEqual([WIDE, false]);
    const columns = (first: string) => t.gql(`{ columnLineage(namespace: "shop", name: "totals", field: "total"${first}) { truncated nodes { field } } }`);
    expect(await columns("").then((r) => [r.data!.columnLineage.nodes.length, r.data!.columnLineage.truncated])).toEqual([1_000, true]);
    expect(await columns(", first: 50000").then((r) => [r.data!.columnLineage.nodes.length, r.data!.columnLineage.truncated])).toEqual([WIDE, false]);
    const prov = await t.gql(`{ provJson(artifactId: "${source}", direction: DOWNSTREAM) }`);
    expect(Object.keys(prov.data!.provJson.entity)).toHaveLength(1 + 1_000);
  });

  test("too costly: the answer names the field and the argument to lower, with the items it asked for", async () => {
    const stated = await t.gql(`{ ${FRONT_END.replace('field: "total")', 'field: "total", first: 50000)')} }`);
    expect(stated.errors).toEqual([
      {
        message:
          "The operation's estimated cost is 22,100,002; at most 1,000,000 is accepted. Its costliest part is `columnLineage` (50,000 items: 22,100,002). Pass a smaller `first` there, or ask for less inside it, fewer aliased copies or less nesting.",
        extensions: { code: "QUERY_TOO_COSTLY", limit: 1_000_000, found: 22_100_002, field: "columnLineage", argument: "first", items: 50_000 },
      },
    ]);
    const byDefault = await t.gql(`{ deep: lineage(artifactId: "${source}") { nodes { artifact { producedBy { outputs { artifact { consumedBy { runId } } } } } } } }`);
    expect(byDefault.errors!.map((e) => [e.message, e.extensions])).toEqual([
      [
        "The operation's estimated cost is 2,212,001; at most 1,000,000 is accepted. Its costliest part is `deep: lineage` (1,000 items by default: 2,212,001). Pass a smaller `first` there, or ask for less inside it, fewer aliased copies or less nesting.",
        { code: "QUERY_TOO_COSTLY", limit: 1_000_000, found: 2_212_001, field: "lineage", argument: "first", items: 1_000 },
      ],
    ]);
    const ids = await t.gql(`query($ids: [ID!]!) { nodes(ids: $ids) { ... on Artifact { producedBy { outputs { artifact { consumedBy { outputs { role } } } } } } } }`, { ids: Array(1_000).fill(source) });
    expect(ids.errors!.map((e) => e.extensions)).toEqual([expect.objectContaining({ code: "QUERY_TOO_COSTLY", field: "nodes", argument: "ids", items: 1_000 })]);
    expect(ids.errors![0].message).toContain("Its costliest part is `nodes` (1,000 items: ");
    expect(ids.errors![0].message).toContain("Ask for fewer ids there");
  });
});
