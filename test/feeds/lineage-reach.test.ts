import fc from "fast-check";
import { edgesInClosures, type LineageKey, lineageKeyOf } from "../../src/services/feeds/lineage-reach";
import { type ArtifactId, artifactIdFor, newRunId } from "../../src/services/ids";
import { ClosureReader } from "../../src/services/lineage/closure";
import type { LineageDirection } from "../../src/services/lineage";
import { seedArtifactRow } from "../support/seed";
import { createTestDatabase, type TestDatabase, testProvider } from "../support/test-database";

/**
 * lineageAdded's evaluation: which of a batch's new edges lie inside each watched closure. On
 * random graphs (cycles and repeats included) it agrees with a breadth-first search in JS, and
 * both ways of walking (from the watched artifacts, or back from the new edges' near ends) give
 * the same answer.
 */
const NODES = 9;

interface Case {
  edges: { from: number; to: number }[];
  /** How many of the edges (the last ones) are the batch just committed. */
  batch: number;
  keys: { node: number; direction: LineageDirection }[];
}

const caseArbitrary: fc.Arbitrary<Case> = fc
  .record({
    edges: fc.array(fc.record({ from: fc.nat(NODES - 1), to: fc.nat(NODES - 1) }), { minLength: 1, maxLength: 16 }),
    batch: fc.nat(16),
    keys: fc.array(fc.record({ node: fc.nat(NODES), direction: fc.constantFrom<LineageDirection>("UPSTREAM", "DOWNSTREAM") }), { minLength: 1, maxLength: 4 }),
  })
  .map((c) => ({ ...c, batch: Math.max(1, Math.min(c.batch, c.edges.length)) }));

/** The obvious way: the watched node's closure (itself included) over every stored edge contains the new edge's near end. */
function expected(c: Case, key: { node: number; direction: LineageDirection }): number[] {
  const reach = new Set([key.node]);
  let frontier = [key.node];
  while (frontier.length) {
    const next: number[] = [];
    for (const node of frontier) {
      for (const edge of c.edges) {
        const [near, far] = key.direction === "DOWNSTREAM" ? [edge.from, edge.to] : [edge.to, edge.from];
        if (near === node && !reach.has(far)) {
          reach.add(far);
          next.push(far);
        }
      }
    }
    frontier = next;
  }
  const first = c.edges.length - c.batch;
  return c.edges
    .slice(first)
    .map((edge, i) => ({ near: key.direction === "DOWNSTREAM" ? edge.from : edge.to, index: i }))
    .filter(({ near }) => reach.has(near))
    .map(({ index }) => index);
}

describe(`lineageAdded evaluation = breadth-first search (${testProvider})`, () => {
  let t: TestDatabase;
  let ids: ArtifactId[];
  let reader: ClosureReader;

  beforeAll(async () => {
    t = await createTestDatabase();
    const rows = Array.from({ length: NODES }, (_, i) => seedArtifactRow(`reach${i}`, "csv"));
    await t.database.prisma.artifact.createMany({ data: rows });
    // Node NODES is an artifact that is not stored (a watched id recorded later, or never).
    ids = [...rows.map((row) => row.id), artifactIdFor("csv", "sha256:" + "f".repeat(64))];
    reader = new ClosureReader(t.database);
  });
  afterAll(() => t.drop());

  test("on random graphs and batches, walking from either side", async () => {
    const run = newRunId();
    // A watched artifact that nothing reaches: adding such keys flips the walk to start from the edges' near ends.
    const padding = Array.from({ length: 20 }, (_, i): LineageKey => ({ artifactId: artifactIdFor("csv", `sha256:${String(i).padStart(64, "0")}`), direction: "DOWNSTREAM" }));
    const paddingUp = padding.map((key): LineageKey => ({ ...key, direction: "UPSTREAM" }));
    await fc.assert(
      fc.asyncProperty(caseArbitrary, async (c) => {
        const db = t.database.prisma;
        await db.provenanceEdge.deleteMany({});
        await db.provenanceEdge.createMany({
          data: c.edges.map((edge, i) => ({ id: i + 1, sourceId: ids[edge.from], targetId: ids[edge.to], runId: run, kind: "INDEPENDENT", groupId: `g${i}`, sourceType: "csv", targetType: "csv" })),
        });
        const batch = c.edges.slice(c.edges.length - c.batch).map((edge) => ({ sourceId: ids[edge.from], targetId: ids[edge.to] }));
        const keys = c.keys.map((key): LineageKey => ({ artifactId: ids[key.node], direction: key.direction }));
        const cut = () => {
          throw new Error("no closure here is large enough to be cut");
        };
        const fromWatched = await edgesInClosures(reader, keys, batch, cut);
        const fromEdges = await edgesInClosures(reader, [...keys, ...padding, ...paddingUp], batch, cut);
        for (const [i, key] of keys.entries()) {
          const want = expected(c, c.keys[i]);
          const got = (answer: Map<string, Set<number>>) => [...(answer.get(lineageKeyOf(key)) ?? [])].sort((a, b) => a - b);
          expect(got(fromWatched)).toEqual(want);
          expect(got(fromEdges)).toEqual(want);
        }
        for (const key of [...padding, ...paddingUp]) expect(fromEdges.has(lineageKeyOf(key))).toBe(false);
      }),
      { numRuns: testProvider === "postgres" ? 40 : 80 },
    );
  });

  test("a batch with more watched artifacts than near ends walks once per near end; with fewer, once per watched artifact", async () => {
    const db = t.database.prisma;
    await db.provenanceEdge.deleteMany({});
    // 0 → 1 → 2, and 3 → 4; the batch is the last edge of each chain.
    const edges = [
      [0, 1],
      [1, 2],
      [3, 4],
    ];
    await db.provenanceEdge.createMany({
      data: edges.map(([from, to], i) => ({ id: i + 1, sourceId: ids[from], targetId: ids[to], runId: newRunId(), kind: "INDEPENDENT", groupId: `w${i}`, sourceType: "csv", targetType: "csv" })),
    });
    const batch = [edges[1], edges[2]].map(([from, to]) => ({ sourceId: ids[from], targetId: ids[to] }));
    const walks: string[] = [];
    const counting = { closure: (query: Parameters<ClosureReader["closure"]>[0]) => (walks.push(`${query.direction} ${ids.indexOf(query.rootId)}`), reader.closure(query)) } as unknown as ClosureReader;
    const one = await edgesInClosures(counting, [{ artifactId: ids[0], direction: "DOWNSTREAM" }], batch, () => undefined);
    expect(walks).toEqual(["DOWNSTREAM 0"]);
    expect([...one.get(lineageKeyOf({ artifactId: ids[0], direction: "DOWNSTREAM" }))!]).toEqual([0]);
    walks.length = 0;
    const three = await edgesInClosures(
      counting,
      [0, 5, 6].map((node) => ({ artifactId: ids[node], direction: "DOWNSTREAM" as const })),
      batch,
      () => undefined,
    );
    expect(walks.sort()).toEqual(["UPSTREAM 1", "UPSTREAM 3"]);
    expect([...three.keys()]).toEqual([lineageKeyOf({ artifactId: ids[0], direction: "DOWNSTREAM" })]);
  });
});
