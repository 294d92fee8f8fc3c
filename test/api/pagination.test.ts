import { createTestApp, type TestApp } from "../support/test-app";
import { seedArtifactRow, seedOperation } from "../support/seed";
import { newRunId, specIdFrom } from "../../src/services/ids";

describe("executions connection over 1,200 executions", () => {
  let t: TestApp;
  let newestFirst: string[];

  beforeAll(async () => {
    t = await createTestApp();
    const db = t.app.database.prisma;
    const operationId = await seedOperation(db, "ingest");
    const runIds = Array.from({ length: 1200 }, () => newRunId());
    await db.execution.createMany({
      data: runIds.map((runId, i) => ({ runId, specId: specIdFrom(`ingest/${i}`), operationId, status: "COMPLETED" })),
    });
    newestFirst = [...runIds].reverse();
  });
  afterAll(() => t.close());

  async function pageForward(first: number) {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const res: any = await t.gql(
        `query($first: Int!, $after: String) { executions(first: $first, after: $after) { edges { cursor node { runId } } pageInfo { hasNextPage endCursor } } }`,
        { first, after },
      );
      expect(res.errors).toBeUndefined();
      const { edges, pageInfo } = res.data.executions;
      seen.push(...edges.map((e: any) => e.node.runId));
      pages += 1;
      if (!pageInfo.hasNextPage) break;
      after = pageInfo.endCursor;
    }
    return { seen, pages };
  }

  test.each([500, 97])("paging forwards %i at a time visits every execution once, newest first", async (first) => {
    const { seen, pages } = await pageForward(first);
    expect(seen).toEqual(newestFirst);
    expect(pages).toBe(Math.ceil(1200 / first));
  });

  test("paging backwards with last/before returns the same executions", async () => {
    const seen: string[] = [];
    let before: string | null = null;
    for (;;) {
      const res: any = await t.gql(
        `query($before: String) { executions(last: 300, before: $before) { edges { node { runId } } pageInfo { hasPreviousPage startCursor } } }`,
        { before },
      );
      expect(res.errors).toBeUndefined();
      seen.unshift(...res.data.executions.edges.map((e: any) => e.node.runId));
      if (!res.data.executions.pageInfo.hasPreviousPage) break;
      before = res.data.executions.pageInfo.startCursor;
    }
    expect(seen).toEqual(newestFirst);
  });

  test("without first, a page holds the default 50", async () => {
    const res: any = await t.gql(`{ executions { edges { node { runId } } pageInfo { hasNextPage } } }`);
    expect(res.data.executions.edges.map((e: any) => e.node.runId)).toEqual(newestFirst.slice(0, 50));
    expect(res.data.executions.pageInfo.hasNextPage).toBe(true);
  });

  test("an empty page has null cursors (not \"\"), whichever way it is read", async () => {
    const pageInfo = "pageInfo { hasNextPage hasPreviousPage startCursor endCursor }";
    const empty = { edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null } };
    const none = await t.gql(`{ executions(first: 10, filter: { status: FAILED }) { edges { cursor } ${pageInfo} } }`);
    expect(none).toEqual({ data: { executions: empty } });
    const zero = await t.gql(`{ executions(first: 0) { edges { cursor } ${pageInfo} } }`);
    expect(zero.data!.executions.edges).toEqual([]);
    expect(zero.data!.executions.pageInfo).toMatchObject({ startCursor: null, endCursor: null });
    const map = await t.gql(`{ provenanceMap(direction: UPSTREAM, last: 5) { edges { cursor } ${pageInfo} } }`);
    expect(map).toEqual({ data: { provenanceMap: empty } });
  });

  test("artifacts seeded alongside do not disturb the count", async () => {
    await t.app.database.prisma.artifact.create({ data: seedArtifactRow("unrelated.csv") });
    const { seen } = await pageForward(500);
    expect(new Set(seen).size).toBe(1200);
  });
});
