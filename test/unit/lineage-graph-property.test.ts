import fc from "fast-check";
import { newRunId, operationIdFor, type RunId, specIdFrom } from "../../src/services/ids";
import { type GraphDirection, LINEAGE_GRAPH_READS, type LineageGraphRecord } from "../../src/services/lineage-graph";
import { seedArtifactRow } from "../support/seed";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * lineageGraph agrees with the slow obvious computation over the stored rows, on random stores
 * (cycles, self-loops, repeated edges, links without edges and edges without links, composite step
 * runs, edges and runs recorded at different times): every node's neighbour counts are what a scan
 * of the links and edges says, its hidden counts are the neighbours not in the answer, the answer is
 * exactly the breadth-first neighbourhood when it is not truncated (and truncated exactly when that
 * neighbourhood is larger than `first`), co-input groups are whole, and the edges drawn are every
 * relation between two nodes of the answer. And impact counts what a breadth-first search over the
 * same rows reaches, by depth.
 */
const ARTIFACTS = 8;
const RUNS = 5;
const TIMES = [new Date("2026-01-01T00:00:00Z"), new Date("2026-02-01T00:00:00Z"), new Date("2026-03-01T00:00:00Z")];
const KINDS = ["INDEPENDENT", "CO_INPUT", "OUTPUT_TO_OUTPUT"] as const;
/** FC_SEED=<n> replays a run fast-check reported (it prints the seed and path of a failure). */
const SEED = process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {};

interface Store {
  runs: { time: number; compositeStep: boolean }[];
  links: { run: number; artifact: number; direction: "CONSUMED" | "PRODUCED"; role: "a" | "b" }[];
  edges: { from: number; to: number; run: number; group: number; kind: (typeof KINDS)[number]; stepBoundary: boolean; time: number }[];
}

interface Case {
  store: Store;
  root: { kind: "artifact" | "run"; index: number };
  direction: GraphDirection;
  depth: number;
  asOf: number | null;
  stepBoundaryOnly: boolean;
  first: number;
}

const caseArbitrary: fc.Arbitrary<Case> = fc.record({
  store: fc.record({
    runs: fc.array(fc.record({ time: fc.nat(TIMES.length - 1), compositeStep: fc.boolean() }), { minLength: RUNS, maxLength: RUNS }),
    links: fc.uniqueArray(
      fc.record({ run: fc.nat(RUNS - 1), artifact: fc.nat(ARTIFACTS - 1), direction: fc.constantFrom<"CONSUMED" | "PRODUCED">("CONSUMED", "PRODUCED"), role: fc.constantFrom<"a" | "b">("a", "b") }),
      { maxLength: 14, size: "max", selector: (l) => `${l.run}/${l.artifact}/${l.direction}/${l.role}` },
    ),
    // Derivations: a child, a run and a group, with one to three sources (its co-inputs); each edge
    // with its own kind, step-boundary flag and time, so that filters can cut a group.
    edges: fc
      .array(
        fc.record({
          to: fc.nat(ARTIFACTS - 1),
          run: fc.nat(RUNS - 1),
          group: fc.nat(1),
          sources: fc.uniqueArray(fc.record({ from: fc.nat(ARTIFACTS - 1), kind: fc.constantFrom(...KINDS), stepBoundary: fc.boolean(), time: fc.nat(TIMES.length - 1) }), {
            minLength: 1,
            maxLength: 3,
            selector: (source) => source.from,
          }),
        }),
        { maxLength: 8, size: "max" },
      )
      .map((derivations) => derivations.flatMap(({ sources, ...derivation }) => sources.map((source) => ({ ...derivation, ...source })))),
  }),
  root: fc.record({ kind: fc.constantFrom<"artifact" | "run">("artifact", "artifact", "run"), index: fc.nat(ARTIFACTS - 1) }),
  direction: fc.constantFrom<GraphDirection>("UPSTREAM", "DOWNSTREAM", "BOTH"),
  depth: fc.nat(3),
  asOf: fc.option(fc.nat(TIMES.length - 1), { nil: null }),
  stepBoundaryOnly: fc.boolean(),
  first: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constant(1000)),
});

/** The store as relations, with the case's filters applied. */
function model(c: Case, artifactIds: string[], runIds: string[]) {
  const runOk = (run: number) => (c.asOf === null || c.store.runs[run].time <= c.asOf) && !(c.stepBoundaryOnly && c.store.runs[run].compositeStep);
  const links = c.store.links.filter((l) => runOk(l.run));
  const edges = c.store.edges
    .map((e, i) => ({ ...e, id: i + 1 }))
    .filter((e) => (!c.stepBoundaryOnly || e.stepBoundary) && (c.asOf === null || e.time <= c.asOf));
  const A = (i: number) => artifactIds[i];
  const R = (i: number) => runIds[i];
  const set = (values: string[]) => new Set(values);
  const producers = (a: number) => set([...links.filter((l) => l.artifact === a && l.direction === "PRODUCED").map((l) => R(l.run)), ...edges.filter((e) => e.to === a).map((e) => R(e.run))]);
  const consumers = (a: number) => set([...links.filter((l) => l.artifact === a && l.direction === "CONSUMED").map((l) => R(l.run)), ...edges.filter((e) => e.from === a && e.kind !== "OUTPUT_TO_OUTPUT").map((e) => R(e.run))]);
  const inputs = (r: number) => set([...links.filter((l) => l.run === r && l.direction === "CONSUMED").map((l) => A(l.artifact)), ...edges.filter((e) => e.run === r && e.kind !== "OUTPUT_TO_OUTPUT").map((e) => A(e.from))]);
  const outputs = (r: number) => set([...links.filter((l) => l.run === r && l.direction === "PRODUCED").map((l) => A(l.artifact)), ...edges.filter((e) => e.run === r).map((e) => A(e.to))]);
  const upOf = new Map<string, Set<string>>();
  const downOf = new Map<string, Set<string>>();
  artifactIds.forEach((id, i) => {
    upOf.set(id, producers(i));
    downOf.set(id, consumers(i));
  });
  runIds.forEach((id, i) => {
    upOf.set(id, inputs(i));
    downOf.set(id, outputs(i));
  });
  return { edges, upOf, downOf, A, R };
}

/** The neighbourhood, breadth-first: the hops of lineage-graph.ts without `first`. */
function expectedNodes(c: Case, m: ReturnType<typeof model>, rootId: string, rootIsRun: boolean, artifactIds: string[]): Set<string> {
  const nodes = new Set<string>([rootId]);
  const indexOf = new Map(artifactIds.map((id, i) => [id, i]));
  for (const side of ["up", "down"] as const) {
    if ((side === "up" && c.direction === "DOWNSTREAM") || (side === "down" && c.direction === "UPSTREAM")) continue;
    // Hop distances along derivation edges from the root (a root run: its inputs / outputs at 1).
    const dist = new Map<number, number>();
    let layer: number[] = [];
    if (rootIsRun) {
      const first = side === "up" ? m.upOf.get(rootId)! : m.downOf.get(rootId)!;
      if (c.depth >= 1) for (const id of first) if (!dist.has(indexOf.get(id)!)) dist.set(indexOf.get(id)!, 1), layer.push(indexOf.get(id)!);
    } else {
      dist.set(indexOf.get(rootId)!, 0);
      layer = [indexOf.get(rootId)!];
    }
    const frontiers: number[][] = [];
    for (let d = dist.size > 0 && rootIsRun ? 1 : 0; layer.length > 0 && d < c.depth; d++) {
      frontiers.push(layer);
      const next: number[] = [];
      for (const a of layer) {
        for (const e of m.edges) {
          const [near, far] = side === "up" ? [e.to, e.from] : [e.from, e.to];
          if (near === a && !dist.has(far)) {
            dist.set(far, d + 1);
            next.push(far);
          }
        }
      }
      layer = next;
    }
    if (rootIsRun) for (const a of dist.keys()) nodes.add(artifactIds[a]);
    for (const frontier of frontiers) {
      for (const a of frontier) {
        if (side === "up") {
          for (const run of m.upOf.get(artifactIds[a])!) nodes.add(run);
          for (const e of m.edges) if (e.to === a) nodes.add(artifactIds[e.from]);
        } else {
          for (const run of m.downOf.get(artifactIds[a])!) nodes.add(run);
          for (const e of m.edges) {
            if (e.from !== a) continue;
            nodes.add(m.R(e.run));
            nodes.add(artifactIds[e.to]);
            // the child's co-inputs: every source of its derivation group
            for (const other of m.edges) if (other.to === e.to && other.run === e.run && other.group === e.group) nodes.add(artifactIds[other.from]);
          }
        }
      }
    }
  }
  return nodes;
}

describe("lineage graph property: the answer = the neighbourhood computed from the rows", () => {
  let t: TestDatabase;
  let artifactIds: string[];
  let runIds: RunId[];

  beforeAll(async () => {
    t = await createTestDatabase();
    const db = t.database.prisma;
    const rows = Array.from({ length: ARTIFACTS }, (_, i) => seedArtifactRow(`p${i}`, "any"));
    await db.artifact.createMany({ data: rows });
    artifactIds = rows.map((row) => row.id);
    const operationId = operationIdFor("op", "1");
    await db.operation.create({ data: { id: operationId, name: "op", version: "1", kind: "CREATOR", declaration: "{}" } });
    runIds = Array.from({ length: RUNS }, () => newRunId());
    await db.execution.createMany({ data: runIds.map((runId, i) => ({ runId, specId: specIdFrom(`p${i}`), operationId, status: "COMPLETED" })) });
  });
  afterAll(() => t.drop());

  /** Writes a random store over the fixed artifacts and runs (replacing the last one). */
  async function seedStore(store: Store) {
    const db = t.database.prisma;
    await db.provenanceEdge.deleteMany({});
    await db.executionArtifact.deleteMany({});
    await db.compositeStepRun.deleteMany({});
    for (const [i, run] of store.runs.entries()) {
      await db.execution.update({ where: { runId: runIds[i] }, data: { recordedAt: TIMES[run.time] } });
      if (run.compositeStep) await db.compositeStepRun.create({ data: { runId: runIds[i], compositeRunId: "run_composite", step: `s${i}`, position: i } });
    }
    await db.executionArtifact.createMany({ data: store.links.map((l, position) => ({ runId: runIds[l.run], artifactId: artifactIds[l.artifact], direction: l.direction, role: l.role, position })) });
    for (const [i, e] of store.edges.entries()) {
      await db.provenanceEdge.create({
        data: { id: i + 1, sourceId: artifactIds[e.from], targetId: artifactIds[e.to], runId: runIds[e.run], kind: e.kind, groupId: `g${e.run}_${e.group}`, stepBoundary: e.stepBoundary, sourceType: "any", targetType: "any", createdAt: TIMES[e.time] },
      });
    }
  }

  test("impact counts = a breadth-first search over the rows", async () => {
    await fc.assert(
      fc.asyncProperty(caseArbitrary, fc.option(fc.nat(3), { nil: null }), async (c, maxDepth) => {
        await seedStore(c.store);
        const direction = c.direction === "BOTH" ? "DOWNSTREAM" : c.direction;
        const root = artifactIds[c.root.index];
        const impact = await LINEAGE_GRAPH_READS.impact({ id: root, direction, maxDepth, asOf: c.asOf === null ? null : TIMES[c.asOf], stepBoundaryOnly: c.stepBoundaryOnly }, { reader: t.database });
        const m = model(c, artifactIds, runIds);
        // artifacts by hops along the derivation edges; a run one hop beyond the nearest artifact it stands beside
        const depth = new Map<string, number>([[root, 0]]);
        let layer = [root];
        for (let d = 1; layer.length > 0; d++) {
          const next: string[] = [];
          for (const a of layer) {
            for (const e of m.edges) {
              const [near, far] = direction === "UPSTREAM" ? [m.A(e.to), m.A(e.from)] : [m.A(e.from), m.A(e.to)];
              if (near === a && !depth.has(far)) depth.set(far, d), next.push(far);
            }
          }
          layer = next;
        }
        const within = (d: number) => d > 0 && (maxDepth === null || d <= maxDepth);
        const runs = new Map<string, number>();
        for (const [a, d] of depth) {
          const beside = direction === "UPSTREAM" ? m.upOf.get(a)! : new Set([...m.downOf.get(a)!, ...m.edges.filter((e) => m.A(e.from) === a).map((e) => m.R(e.run))]);
          for (const run of beside) if (within(d + 1)) runs.set(run, Math.min(runs.get(run) ?? d + 1, d + 1));
        }
        const artifacts = [...depth].filter(([a, d]) => a !== root && within(d));
        const total = (kind: string) => impact.totals.find((x) => x.kind === kind)!.count;
        expect([total("ARTIFACT"), total("RUN"), total("JOB")]).toEqual([artifacts.length, runs.size, runs.size > 0 ? 1 : 0]);
        const sign = direction === "UPSTREAM" ? -1 : 1;
        for (const level of impact.byDepth) {
          const hops = level.depth * sign;
          expect(level.nodeIds.sort()).toEqual([...artifacts.filter(([, d]) => d === hops).map(([a]) => a), ...[...runs].filter(([, d]) => d === hops).map(([r]) => r)].sort());
        }
      }),
      { numRuns: 100, ...SEED },
    );
  });

  /** The answer for a case = the neighbourhood computed from its rows. */
  async function expectGraphOfRows(c: Case) {
    await seedStore(c.store);
    const rootIsRun = c.root.kind === "run";
    const rootId = rootIsRun ? runIds[c.root.index % RUNS] : artifactIds[c.root.index];
    const graph: LineageGraphRecord = await LINEAGE_GRAPH_READS.lineageGraph(
      { roots: [rootId], direction: c.direction, depth: c.depth, asOf: c.asOf === null ? null : TIMES[c.asOf], stepBoundaryOnly: c.stepBoundaryOnly, columns: false, layout: false, first: c.first },
      { reader: t.database },
    );
    const m = model(c, artifactIds, runIds);
    const shown = new Set(graph.nodes.map((n) => n.id));
    // counts: a scan of the rows; hidden: the neighbours not in the answer
    for (const node of graph.nodes) {
      const up = m.upOf.get(node.id)!;
      const down = m.downOf.get(node.id)!;
      expect([node.id, node.upstreamCount, node.downstreamCount]).toEqual([node.id, up.size, down.size]);
      expect([node.id, node.hiddenUpstream, node.hiddenDownstream]).toEqual([node.id, [...up].filter((n) => !shown.has(n)).length, [...down].filter((n) => !shown.has(n)).length]);
    }
    // the neighbourhood: exactly, unless more than `first` (then a part of it, and truncated)
    const expected = expectedNodes(c, m, rootId, rootIsRun, artifactIds);
    expect(graph.truncated).toBe(expected.size - 1 > c.first);
    if (!graph.truncated) expect([...shown].sort()).toEqual([...expected].sort());
    else {
      for (const id of shown) expect(expected).toContain(id);
      expect(shown.size - 1).toBeLessThanOrEqual(c.first);
    }
    // co-input groups whole: an artifact in the answer downstream came in a whole piece, either the
    // child of a group whose every source is shown (a group leading to it from the hop before), or
    // a co-input in a shown child's whole group. (When truncated, another of its groups may be drawn
    // in part, its run cut away. Untruncated, the answer equals the neighbourhood above, co-inputs
    // and all.)
    const depthOf = new Map(graph.nodes.map((n) => [n.id, n.depth]));
    const derived = graph.edges.filter((e) => e.kind === "DERIVED");
    const wholeGroup = (edge: LineageGraphRecord["edges"][number]) =>
      m.edges.filter((e) => m.A(e.to) === edge.target && m.R(e.run) === edge.runId && `g${e.run}_${e.group}` === edge.groupId).every((e) => shown.has(m.A(e.from)));
    const bringing = derived.filter((e) => depthOf.get(e.target)! > 0 && depthOf.get(e.source) === depthOf.get(e.target)! - 1);
    for (const child of new Set(bringing.map((e) => e.target))) {
      const broughtWhole = bringing.some((e) => e.target === child && wholeGroup(e));
      const coInputOfWhole = derived.some((e) => e.source === child && wholeGroup(e));
      expect([child, broughtWhole || coInputOfWhole]).toEqual([child, true]);
    }
    // the edges drawn: every relation between two nodes of the answer, and nothing else
    const relations = new Set<string>();
    for (const [id, ups] of m.upOf) for (const up of ups) if (shown.has(id) && shown.has(up)) relations.add(`${up}>${id}`);
    const drawn = new Set(graph.edges.filter((e) => e.kind === "USED" || e.kind === "GENERATED").map((e) => `${e.source}>${e.target}`));
    expect([...drawn].sort()).toEqual([...relations].sort());
    const derivations = m.edges.filter((e) => shown.has(m.A(e.from)) && shown.has(m.A(e.to))).map((e) => `derived:${e.id}`);
    expect(graph.edges.filter((e) => e.kind === "DERIVED").map((e) => e.id).sort()).toEqual(derivations.sort());
  }

  test("on random stores", async () => {
    await fc.assert(fc.asyncProperty(caseArbitrary, expectGraphOfRows), { numRuns: 120, ...SEED });
  });

  // A root is also the child of a derivation that leads back to it: it comes with its co-inputs like any child.
  const selfEdgeStore = (kind: (typeof KINDS)[number]): Store => ({
    runs: Array.from({ length: RUNS }, () => ({ time: 0, compositeStep: false })),
    links: [],
    edges: [
      { from: 0, to: 0, run: 1, group: 1, kind, stepBoundary: false, time: 0 },
      { from: 1, to: 0, run: 1, group: 1, kind, stepBoundary: false, time: 0 },
    ],
  });
  const edge = (from: number, to: number, run: number, kind: (typeof KINDS)[number] = "CO_INPUT") => ({ from, to, run, group: 0, kind, stepBoundary: false, time: 0 });
  const rootCase = (store: Store, direction: GraphDirection, depth: number): Case => ({ store, root: { kind: "artifact", index: 0 }, direction, depth, asOf: null, stepBoundaryOnly: false, first: 1000 });

  test("a self-edge with a co-input: the root's own derivation brings its co-input (seed 1961907682)", async () => {
    for (const direction of ["DOWNSTREAM", "BOTH", "UPSTREAM"] as const) {
      for (const depth of [1, 2]) await expectGraphOfRows(rootCase(selfEdgeStore("INDEPENDENT"), direction, depth));
    }
    await expectGraphOfRows(rootCase(selfEdgeStore("CO_INPUT"), "DOWNSTREAM", 1));
  });

  test("a self-edge neither counts the root in its own impact nor makes a path", async () => {
    // 0 → 0 and 1 → 0 (run 1, one group); 0 → 2 (run 0)
    await seedStore({ ...selfEdgeStore("INDEPENDENT"), edges: [...selfEdgeStore("INDEPENDENT").edges, edge(0, 2, 0)] });
    const [a0, a1, a2] = artifactIds;
    const impact = (direction: "UPSTREAM" | "DOWNSTREAM") => LINEAGE_GRAPH_READS.impact({ id: a0, direction, maxDepth: null, asOf: null, stepBoundaryOnly: false }, { reader: t.database });
    const levels = (record: Awaited<ReturnType<typeof impact>>) => record.byDepth.map((level) => [level.depth, level.nodeIds.sort()]);
    const totals = (record: Awaited<ReturnType<typeof impact>>) => Object.fromEntries(record.totals.map((x) => [x.kind, x.count]));
    const down = await impact("DOWNSTREAM");
    expect([totals(down).ARTIFACT, totals(down).RUN]).toEqual([1, 2]);
    expect(levels(down)).toEqual([[1, [a2, runIds[0], runIds[1]].sort()]]);
    const up = await impact("UPSTREAM");
    expect([totals(up).ARTIFACT, totals(up).RUN]).toEqual([1, 1]);
    expect(levels(up)).toEqual([[-1, [a1, runIds[1]].sort()]]);
    const paths = (from: string, to: string) => LINEAGE_GRAPH_READS.lineagePath({ from, to, maxPaths: 10, maxDepth: 5, asOf: null, stepBoundaryOnly: false }, { reader: t.database });
    expect((await paths(a0, a2)).paths.map((p) => p.nodeIds)).toEqual([[a0, a2]]);
    expect((await paths(a1, a2)).paths.map((p) => p.nodeIds)).toEqual([[a1, a0, a2]]);
    expect((await paths(a2, a1)).paths.map((p) => p.nodeIds)).toEqual([[a2, a0, a1]]);
    expect((await paths(a0, a0)).paths).toEqual([]);
  });

  test("a cycle back into the root with a co-input, and one root derived from another", async () => {
    // 0 → 2 (run 0); 2 → 0 with 3 → 0 (run 2, one group); 4 → 0 (run 3): two hops downstream lead back to the root
    const cycle: Store = { ...selfEdgeStore("INDEPENDENT"), edges: [edge(0, 2, 0, "INDEPENDENT"), edge(2, 0, 2), edge(3, 0, 2), edge(4, 0, 3, "INDEPENDENT")] };
    for (const depth of [1, 2, 3]) await expectGraphOfRows(rootCase(cycle, "DOWNSTREAM", depth));
    // two roots, the second derived from the first with a co-input (6): the co-input is shown, beside the roots
    await seedStore({ ...cycle, edges: [edge(0, 5, 1), edge(6, 5, 1)] });
    const graph = await LINEAGE_GRAPH_READS.lineageGraph(
      { roots: [artifactIds[0], artifactIds[5]], direction: "DOWNSTREAM", depth: 1, asOf: null, stepBoundaryOnly: false, columns: false, layout: false, first: 1000 },
      { reader: t.database },
    );
    expect(graph.nodes.map((n) => `${n.id}@${n.depth}`).sort()).toEqual([`${artifactIds[0]}@0`, `${artifactIds[5]}@0`, `${artifactIds[6]}@0`, `${runIds[1]}@1`].sort());
  });
});


