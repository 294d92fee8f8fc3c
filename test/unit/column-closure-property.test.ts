import fc from "fast-check";
import { ColumnClosureReader, COLUMN_DEPTH_WALK_MAX_DEPTH } from "../../src/services/columns/column-closure";
import type { ColumnEdgeType } from "../../src/services/columns";
import type { ArtifactId } from "../../src/services/ids";
import type { LineageDirection } from "../../src/services/lineage";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * The recursive SQL column closure agrees with a breadth-first search in JS on random column graphs
 * (cycles, self-loops, repeated and dataset-wide edges included), for every combination of
 * direction, maxDepth (depth walk and reach walk), type filter and first.
 */
const ARTIFACTS = ["art_a", "art_b", "art_c", "art_d"].map((a) => a.padEnd(44, "0")) as ArtifactId[];
const FIELDS = ["f0", "f1", "f2"];

interface RandomEdge {
  from: number;
  fromField: number;
  to: number;
  /** -1: dataset-wide (no target field). */
  toField: number;
  type: ColumnEdgeType;
}

interface Case {
  edges: RandomEdge[];
  root: { artifact: number; field: number };
  direction: LineageDirection;
  maxDepth: number | null;
  types: ColumnEdgeType[] | null;
  first: number;
}

const caseArbitrary: fc.Arbitrary<Case> = fc.record({
  edges: fc.array(
    fc.record({
      from: fc.nat(ARTIFACTS.length - 1),
      fromField: fc.nat(FIELDS.length - 1),
      to: fc.nat(ARTIFACTS.length - 1),
      toField: fc.integer({ min: -1, max: FIELDS.length - 1 }),
      type: fc.constantFrom<ColumnEdgeType>("DIRECT", "INDIRECT"),
    }),
    { maxLength: 20 },
  ),
  root: fc.record({ artifact: fc.nat(ARTIFACTS.length - 1), field: fc.nat(FIELDS.length - 1) }),
  direction: fc.constantFrom<LineageDirection>("UPSTREAM", "DOWNSTREAM"),
  maxDepth: fc.option(fc.oneof(fc.nat(3), fc.constant(COLUMN_DEPTH_WALK_MAX_DEPTH + 2)), { nil: null }),
  types: fc.option(fc.subarray<ColumnEdgeType>(["DIRECT", "INDIRECT"], { minLength: 1 }), { nil: null }),
  first: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constant(100)),
});

type Node = string; // "artifact|field" or "artifact|*"
const node = (artifact: number, field: number | null): Node => `${artifact}|${field === null ? "*" : field}`;

/** The answer, computed the slow obvious way from the documented walk rules. */
function expected(c: Case) {
  const edges = c.edges.map((e, i) => ({ ...e, id: i + 1 })).filter((e) => !c.types || c.types.includes(e.type));
  const follow = (n: Node) => {
    const [artifact, field] = n.split("|");
    return edges.flatMap((e) => {
      if (c.direction === "UPSTREAM") {
        const into = String(e.to) === artifact && (e.toField === -1 || String(e.toField) === field);
        return into ? [{ edge: e, far: node(e.from, e.fromField) }] : [];
      }
      const outOf = String(e.from) === artifact && (field === "*" || String(e.fromField) === field);
      return outOf ? [{ edge: e, far: node(e.to, e.toField === -1 ? null : e.toField) }] : [];
    });
  };
  const root = node(c.root.artifact, c.root.field);
  const depth = new Map<Node, number>([[root, 0]]);
  let frontier = [root];
  for (let d = 1; frontier.length > 0 && (c.maxDepth === null || d <= c.maxDepth); d++) {
    const next: Node[] = [];
    for (const n of frontier) {
      for (const { far } of follow(n)) {
        if (!depth.has(far)) {
          depth.set(far, d);
          next.push(far);
        }
      }
    }
    frontier = next;
  }
  const order = (n: Node) => {
    const [artifact, field] = n.split("|");
    return [ARTIFACTS[Number(artifact)], field === "*" ? "" : FIELDS[Number(field)], field === "*" ? 0 : 1] as const;
  };
  const candidates = [...depth.entries()]
    .filter(([n]) => n !== root)
    .sort(([a, da], [b, db]) => {
      if (da !== db) return da - db;
      const [x, y] = [order(a), order(b)];
      return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : x[2] - y[2];
    });
  const kept = candidates.slice(0, c.first);
  const keptSet = new Set([root, ...kept.map(([n]) => n)]);
  const keptEdges = new Set<number>();
  for (const n of keptSet) for (const { edge, far } of follow(n)) if (keptSet.has(far)) keptEdges.add(edge.id);
  return {
    nodes: kept.map(([n, d]) => {
      const [artifact, field] = n.split("|");
      return { artifactId: ARTIFACTS[Number(artifact)], field: field === "*" ? null : FIELDS[Number(field)], depth: d };
    }),
    edgeIds: [...keptEdges].sort((a, b) => a - b),
    truncated: candidates.length > c.first,
  };
}

describe("column closure property: SQL walk = breadth-first search", () => {
  let t: TestDatabase;
  beforeAll(async () => (t = await createTestDatabase()));
  afterAll(() => t.drop());

  it("agrees on random column graphs", async () => {
    const reader = new ColumnClosureReader(t.database);
    await fc.assert(
      fc.asyncProperty(caseArbitrary, async (c) => {
        const db = t.database.prisma;
        await db.columnEdge.deleteMany();
        // Ids restart per case so expected edge ids are the case's positions.
        if (t.database.provider === "postgres") await db.$executeRawUnsafe(`ALTER SEQUENCE "ColumnEdge_id_seq" RESTART WITH 1`);
        else await db.$executeRawUnsafe(`DELETE FROM sqlite_sequence WHERE name = 'ColumnEdge'`);
        for (const e of c.edges) {
          await db.columnEdge.create({
            data: { sourceId: ARTIFACTS[e.from], sourceField: FIELDS[e.fromField], targetId: ARTIFACTS[e.to], targetField: e.toField === -1 ? null : FIELDS[e.toField], runId: "run_00000000-0000-4000-8000-000000000000", type: e.type },
          });
        }
        const closure = await reader.closure({ root: { artifactId: ARTIFACTS[c.root.artifact], field: FIELDS[c.root.field] }, direction: c.direction, maxDepth: c.maxDepth, types: c.types, first: c.first });
        const want = expected(c);
        expect({ nodes: closure.nodes, edgeIds: closure.edges.map((e) => e.id), truncated: closure.truncated }).toEqual(want);
      }),
      { numRuns: 60 },
    );
  });
});
