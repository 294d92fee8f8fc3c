import fc from "fast-check";
import { ClosureReader, DEPTH_WALK_MAX_DEPTH } from "../../src/services/lineage/closure";
import { type ArtifactId, newRunId } from "../../src/services/ids";
import type { LineageDirection } from "../../src/services/lineage/lineage-records";
import { seedArtifactRow } from "../support/seed";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * The recursive SQL closure agrees with a breadth-first search in JS on random graphs (cycles,
 * self-loops and repeated edges included), for every combination of direction, maxDepth, type
 * filter, step-boundary filter, asOf and first.
 */
const NODES = 10;
const TYPES = ["a", "b", "c"];
const TIMES = [new Date("2026-01-01T00:00:00Z"), new Date("2026-02-01T00:00:00Z"), new Date("2026-03-01T00:00:00Z")];

interface RandomEdge {
  from: number;
  to: number;
  stepBoundary: boolean;
  time: number;
}

interface Case {
  types: string[];
  edges: RandomEdge[];
  root: number;
  direction: LineageDirection;
  maxDepth: number | null;
  artifactTypes: string[] | null;
  stepBoundaryOnly: boolean;
  asOf: number | null;
  first: number;
}

const caseArbitrary: fc.Arbitrary<Case> = fc.record({
  types: fc.array(fc.constantFrom(...TYPES), { minLength: NODES, maxLength: NODES }),
  edges: fc.array(
    fc.record({ from: fc.nat(NODES - 1), to: fc.nat(NODES - 1), stepBoundary: fc.boolean(), time: fc.nat(TIMES.length - 1) }),
    { maxLength: 25 },
  ),
  root: fc.nat(NODES - 1),
  direction: fc.constantFrom<LineageDirection>("UPSTREAM", "DOWNSTREAM"),
  maxDepth: fc.option(fc.oneof(fc.nat(4), fc.constant(DEPTH_WALK_MAX_DEPTH + 3)), { nil: null }),
  artifactTypes: fc.option(fc.subarray(TYPES, { minLength: 1 }), { nil: null }),
  stepBoundaryOnly: fc.boolean(),
  asOf: fc.option(fc.nat(TIMES.length - 1), { nil: null }),
  first: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.constant(100)),
});

/** The answer, computed the slow obvious way. */
function expectedClosure(c: Case) {
  const edges = c.edges
    .map((edge, index) => ({ ...edge, id: index + 1 }))
    .filter((edge) => (!c.stepBoundaryOnly || edge.stepBoundary) && (c.asOf === null || edge.time <= c.asOf));
  const depth = new Map<number, number>([[c.root, 0]]);
  let frontier = [c.root];
  for (let d = 1; frontier.length; d++) {
    const next: number[] = [];
    for (const node of frontier) {
      for (const edge of edges) {
        const [near, far] = c.direction === "UPSTREAM" ? [edge.to, edge.from] : [edge.from, edge.to];
        if (near === node && !depth.has(far)) {
          depth.set(far, d);
          next.push(far);
        }
      }
    }
    frontier = next;
  }
  const candidates = [...depth.entries()]
    .filter(([node, d]) => node !== c.root && (c.maxDepth === null || d <= c.maxDepth) && (!c.artifactTypes || c.artifactTypes.includes(c.types[node])))
    .map(([node, d]) => ({ node, depth: d }));
  const edgesAmong = (kept: Set<number>) => edges.filter((edge) => kept.has(edge.from) && kept.has(edge.to)).map((edge) => edge.id);
  return { candidates, depth, edgesAmong, truncated: candidates.length > c.first };
}

describe("closure property: SQL walk = breadth-first search", () => {
  let t: TestDatabase;
  let ids: ArtifactId[];
  let indexOf: Map<string, number>;
  let reader: ClosureReader;

  beforeAll(async () => {
    t = await createTestDatabase();
    const rows = Array.from({ length: NODES }, (_, i) => seedArtifactRow(`n${i}`, "any"));
    await t.database.prisma.artifact.createMany({ data: rows });
    ids = rows.map((row) => row.id);
    // Random ids order differently from node numbers, which makes the id tie-break meaningful.
    indexOf = new Map(ids.map((id, i) => [id, i]));
    reader = new ClosureReader(t.database);
  });
  afterAll(() => t.drop());

  test("on random graphs", async () => {
    const run = newRunId();
    await fc.assert(
      fc.asyncProperty(caseArbitrary, async (c) => {
        const db = t.database.prisma;
        await db.provenanceEdge.deleteMany({});
        for (const [i, edge] of c.edges.entries()) {
          await db.provenanceEdge.create({
            data: {
              id: i + 1,
              sourceId: ids[edge.from],
              targetId: ids[edge.to],
              runId: run,
              kind: "INDEPENDENT",
              groupId: `g${i}`,
              stepBoundary: edge.stepBoundary,
              sourceType: c.types[edge.from],
              targetType: c.types[edge.to],
              createdAt: TIMES[edge.time],
            },
          });
        }
        const closure = await reader.closure({
          rootId: ids[c.root],
          direction: c.direction,
          maxDepth: c.maxDepth,
          artifactTypes: c.artifactTypes,
          stepBoundaryOnly: c.stepBoundaryOnly,
          asOf: c.asOf === null ? null : TIMES[c.asOf],
          first: c.first,
        });
        const expected = expectedClosure(c);
        const got = closure.nodes.map((node) => ({ node: indexOf.get(node.artifactId)!, depth: node.depth }));

        expect(closure.truncated).toBe(expected.truncated);
        // every node is a candidate, at its shortest distance, nearest first
        got.forEach((node, i) => {
          expect(expected.candidates).toContainEqual(node);
          expect(closure.nodes[i].artifactType).toBe(c.types[node.node]);
        });
        const byNearest = (a: { node: number; depth: number }, b: { node: number; depth: number }) =>
          a.depth - b.depth || (ids[a.node] < ids[b.node] ? -1 : 1);
        const nearest = [...expected.candidates].sort(byNearest).slice(0, c.first);
        expect(got.map((n) => n.depth)).toEqual(nearest.map((n) => n.depth));
        // the same nodes, except that a cut inside one depth may keep any of that depth's nodes
        const boundary = nearest.length ? nearest[nearest.length - 1].depth : 0;
        const exact = !expected.truncated || c.artifactTypes !== null || (c.maxDepth !== null && c.maxDepth <= DEPTH_WALK_MAX_DEPTH);
        if (exact) expect(got).toEqual(nearest);
        else expect(got.filter((n) => n.depth < boundary)).toEqual(nearest.filter((n) => n.depth < boundary));
        // the edges are exactly those among the returned nodes and the root
        const kept = new Set([c.root, ...got.map((n) => n.node)]);
        expect(closure.edges.map((edge) => edge.id)).toEqual(expected.edgesAmong(kept));
      }),
      { numRuns: 150 },
    );
  });
});
