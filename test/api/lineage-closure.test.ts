import { artifactIdFor, newRunId } from "../../src/services/ids";
import { type SeededGraph, seedGraph } from "../support/lineage-graph";
import { seedArtifactRow } from "../support/seed";
import { createTestApp, errorCodes, type TestApp } from "../support/test-app";

/** Closures, one-hop fields and derivations over hand-built graphs with known answers. */
describe("lineage over hand-built graphs", () => {
  let t: TestApp;
  let chain: SeededGraph;
  let diamond: SeededGraph;
  let joint: SeededGraph;
  let composite: SeededGraph;
  let cycle: SeededGraph;
  let typed: SeededGraph;
  let timeline: SeededGraph;
  let fan: SeededGraph;
  const LONG = 10_050;
  let longIds: string[];
  const T1 = new Date("2026-01-01T00:00:00.000Z");
  const T2 = new Date("2026-02-01T00:00:00.000Z");
  const T3 = new Date("2026-03-01T00:00:00.000Z");

  beforeAll(async () => {
    t = await createTestApp();
    const db = t.app.database.prisma;
    // c0 → c1 → c2 → c3 (c0 is the oldest ancestor)
    chain = await seedGraph(db, "chain", { c0: "csv", c1: "csv", c2: "csv", c3: "csv" }, [
      { from: "c0", to: "c1" },
      { from: "c1", to: "c2" },
      { from: "c2", to: "c3" },
    ]);
    // d0 → d1 → d3 and d0 → d2 → d3
    diamond = await seedGraph(db, "diamond", { d0: "csv", d1: "csv", d2: "csv", d3: "csv" }, [
      { from: "d0", to: "d1" },
      { from: "d0", to: "d2" },
      { from: "d1", to: "d3" },
      { from: "d2", to: "d3" },
    ]);
    // z = compare(x, y) jointly in one run; z also re-derived from w alone in another run
    const otherRun = newRunId();
    joint = await seedGraph(db, "joint", { x: "csv", y: "csv", w: "csv", z: "report" }, [
      { from: "x", to: "z", kind: "CO_INPUT", group: "xy" },
      { from: "y", to: "z", kind: "CO_INPUT", group: "xy" },
      { from: "w", to: "z", run: otherRun },
    ]);
    // a composite: s0 → s1 → s2 inside (not step boundaries), plus the shortcut s0 → s2
    composite = await seedGraph(db, "composite", { s0: "csv", s1: "tmp", s2: "csv" }, [
      { from: "s0", to: "s1", stepBoundary: false },
      { from: "s1", to: "s2", stepBoundary: false },
      { from: "s0", to: "s2", stepBoundary: true },
    ]);
    // k0 → k1 → k2 → k0, injected directly (a csv → parquet → csv round trip looks like this)
    cycle = await seedGraph(db, "cycle", { k0: "csv", k1: "parquet", k2: "json" }, [
      { from: "k0", to: "k1" },
      { from: "k1", to: "k2" },
      { from: "k2", to: "k0" },
    ]);
    // raw → clean → model → metric, model → report, raw → stats (a metric one hop away)
    typed = await seedGraph(db, "typed", { raw: "csv", clean: "parquet", model: "model", metric: "metric", report: "pdf", stats: "metric" }, [
      { from: "raw", to: "clean" },
      { from: "clean", to: "model" },
      { from: "model", to: "metric" },
      { from: "model", to: "report" },
      { from: "raw", to: "stats" },
    ]);
    // e0 → e1 recorded at T1, e1 → e2 recorded at T3
    timeline = await seedGraph(db, "timeline", { e0: "csv", e1: "csv", e2: "csv" }, [
      { from: "e0", to: "e1", at: T1 },
      { from: "e1", to: "e2", at: T3 },
    ]);
    // hub with 30 parents p00..p29, each with one grandparent g00..g29
    const fanArtifacts: Record<string, string> = { hub: "csv" };
    const fanEdges = [];
    for (let i = 0; i < 30; i++) {
      const p = `p${String(i).padStart(2, "0")}`;
      const g = `g${String(i).padStart(2, "0")}`;
      fanArtifacts[p] = "csv";
      fanArtifacts[g] = "csv";
      fanEdges.push({ from: p, to: "hub" }, { from: g, to: p });
    }
    fan = await seedGraph(db, "fan", fanArtifacts, fanEdges);
    // a chain longer than the default cap: long_0 → long_1 → … → long_10049
    const long = Array.from({ length: LONG }, (_, i) => seedArtifactRow(`long_${i}`));
    await db.artifact.createMany({ data: long });
    await db.provenanceEdge.createMany({
      data: long.slice(1).map((target, i) => ({
        sourceId: long[i].id,
        targetId: target.id,
        runId: chain.run,
        kind: "INDEPENDENT",
        groupId: `grp_long_${i}`,
        sourceType: "csv",
        targetType: "csv",
      })),
    });
    longIds = long.map((row) => row.id);
  });
  afterAll(() => t.close());

  const LINEAGE = `query($id: ID!, $direction: LineageDirection, $maxDepth: Int, $types: [String!], $sbo: Boolean, $asOf: DateTime, $first: Int) {
    lineage(artifactId: $id, direction: $direction, maxDepth: $maxDepth, artifactTypes: $types, stepBoundaryOnly: $sbo, asOf: $asOf, first: $first) {
      root { id } direction truncated
      nodes { artifact { id } depth artifactType }
      edges { source { id } target { id } kind groupId stepBoundary runId }
    } }`;

  /** The closure with artifact ids replaced by names: nodes as "name@depth", edges as "from>to". */
  async function closure(graph: SeededGraph, root: string, vars: Record<string, unknown> = {}): Promise<{ nodes: string[]; edges: string[]; truncated: boolean; raw: any }> {
    const res = await t.gql(LINEAGE, { id: graph.id(root), ...vars });
    expect(res.errors).toBeUndefined();
    const lineage = res.data!.lineage;
    expect(lineage.root.id).toBe(graph.id(root));
    return {
      nodes: lineage.nodes.map((n: any) => `${graph.name(n.artifact.id)}@${n.depth}`),
      edges: lineage.edges.map((e: any) => `${graph.name(e.source.id)}>${graph.name(e.target.id)}`),
      truncated: lineage.truncated,
      raw: lineage,
    };
  }

  /** Names sorted the way a closure orders nodes of equal depth: by artifact id. */
  const byId = (graph: SeededGraph, ...names: string[]) => [...names].sort((a, b) => (graph.id(a) < graph.id(b) ? -1 : 1));

  describe("closures", () => {
    test("a chain upstream: every ancestor, nearest first, with the edges among them", async () => {
      const c = await closure(chain, "c3");
      expect(c.nodes).toEqual(["c2@1", "c1@2", "c0@3"]);
      expect(c.edges).toEqual(["c0>c1", "c1>c2", "c2>c3"]);
      expect(c.truncated).toBe(false);
      expect(c.raw.direction).toBe("UPSTREAM");
      expect(c.raw.edges[0]).toEqual({
        source: { id: chain.id("c0") },
        target: { id: chain.id("c1") },
        kind: "INDEPENDENT",
        groupId: "grp_chain_c0_c1",
        stepBoundary: true,
        runId: chain.run,
      });
      expect(c.raw.nodes[0].artifactType).toBe("csv");
    });

    test("a chain downstream", async () => {
      const c = await closure(chain, "c0", { direction: "DOWNSTREAM" });
      expect(c.nodes).toEqual(["c1@1", "c2@2", "c3@3"]);
      expect(c.edges).toEqual(["c0>c1", "c1>c2", "c2>c3"]);
    });

    test("maxDepth limits the hops; 0 is the root alone; a large maxDepth is fully transitive", async () => {
      expect((await closure(chain, "c3", { maxDepth: 2 })).nodes).toEqual(["c2@1", "c1@2"]);
      expect((await closure(chain, "c3", { maxDepth: 2 })).edges).toEqual(["c1>c2", "c2>c3"]);
      expect((await closure(chain, "c3", { maxDepth: 0 })).nodes).toEqual([]);
      expect((await closure(chain, "c3", { maxDepth: 0 })).edges).toEqual([]);
      expect((await closure(chain, "c3", { maxDepth: 1000 })).nodes).toEqual(["c2@1", "c1@2", "c0@3"]);
    });

    test("a diamond: the shared ancestor appears once, at its shortest distance", async () => {
      const up = await closure(diamond, "d3");
      expect(up.nodes).toEqual([...byId(diamond, "d1", "d2").map((n) => `${n}@1`), "d0@2"]);
      expect(up.edges).toEqual(["d0>d1", "d0>d2", "d1>d3", "d2>d3"]);
      const down = await closure(diamond, "d0", { direction: "DOWNSTREAM" });
      expect(down.nodes).toEqual([...byId(diamond, "d1", "d2").map((n) => `${n}@1`), "d3@2"]);
    });

    test("co-input edges keep their kind and shared groupId", async () => {
      const c = await closure(joint, "z");
      expect(c.nodes).toEqual(byId(joint, "x", "y", "w").map((n) => `${n}@1`));
      expect(c.raw.edges.map((e: any) => [joint.name(e.source.id), e.kind, e.groupId])).toEqual([
        ["x", "CO_INPUT", "grp_joint_xy"],
        ["y", "CO_INPUT", "grp_joint_xy"],
        ["w", "INDEPENDENT", "grp_joint_w_z"],
      ]);
    });

    test("stepBoundaryOnly follows the composite's shortcut, not its internal edges", async () => {
      const all = await closure(composite, "s2");
      expect(all.nodes).toEqual(byId(composite, "s0", "s1").map((n) => `${n}@1`));
      expect(all.edges).toEqual(["s0>s1", "s1>s2", "s0>s2"]);
      const boundary = await closure(composite, "s2", { sbo: true });
      expect(boundary.nodes).toEqual(["s0@1"]);
      expect(boundary.edges).toEqual(["s0>s2"]);
      expect((await closure(composite, "s0", { direction: "DOWNSTREAM", sbo: true })).nodes).toEqual(["s2@1"]);
    });

    test.each([
      ["fully transitive", {}],
      ["with a type filter", { types: ["csv", "parquet", "json"] }],
      ["with a small maxDepth", { maxDepth: 10 }],
      ["with a large maxDepth", { maxDepth: 40 }],
    ])("a cycle injected into the table terminates (%s)", async (_name, vars) => {
      const up = await closure(cycle, "k0", vars);
      expect(up.nodes).toEqual(["k2@1", "k1@2"]);
      expect(up.edges).toEqual(["k0>k1", "k1>k2", "k2>k0"]);
      expect(up.truncated).toBe(false);
      const down = await closure(cycle, "k0", { ...vars, direction: "DOWNSTREAM" });
      expect(down.nodes).toEqual(["k1@1", "k2@2"]);
    });

    test("artifactTypes returns only artifacts of those types but walks through the others", async () => {
      const metrics = await closure(typed, "raw", { direction: "DOWNSTREAM", types: ["metric"] });
      expect(metrics.nodes).toEqual(["stats@1", "metric@3"]);
      // edges among the returned artifacts and the root only
      expect(metrics.edges).toEqual(["raw>stats"]);
      expect(metrics.raw.nodes.map((n: any) => n.artifactType)).toEqual(["metric", "metric"]);
      expect((await closure(typed, "raw", { direction: "DOWNSTREAM", types: ["metric"], maxDepth: 2 })).nodes).toEqual(["stats@1"]);
      expect((await closure(typed, "raw", { direction: "DOWNSTREAM", types: ["metric"], maxDepth: 30 })).nodes).toEqual(["stats@1", "metric@3"]);
      expect((await closure(typed, "raw", { direction: "DOWNSTREAM", types: ["pdf", "model"] })).nodes).toEqual(["model@2", "report@3"]);
      expect((await closure(typed, "raw", { direction: "DOWNSTREAM", types: ["model"] })).edges).toEqual([]);
      expect((await closure(typed, "report", { types: ["csv"] })).nodes).toEqual(["raw@3"]);
      expect((await closure(typed, "raw", { direction: "DOWNSTREAM", types: ["nothing-has-this-type"] })).nodes).toEqual([]);
    });

    test("asOf answers as the graph stood then: edges recorded later are ignored", async () => {
      expect((await closure(timeline, "e0", { direction: "DOWNSTREAM", asOf: T2.toISOString() })).nodes).toEqual(["e1@1"]);
      expect((await closure(timeline, "e2", { asOf: T2.toISOString() })).nodes).toEqual([]);
      expect((await closure(timeline, "e2", { asOf: T2.toISOString() })).edges).toEqual([]);
      // an edge recorded exactly at asOf counts
      expect((await closure(timeline, "e2", { asOf: T3.toISOString() })).nodes).toEqual(["e1@1", "e0@2"]);
      expect((await closure(timeline, "e0", { direction: "DOWNSTREAM", asOf: T3.toISOString(), maxDepth: 5 })).nodes).toEqual(["e1@1", "e2@2"]);
      expect((await closure(timeline, "e0", { direction: "DOWNSTREAM", asOf: new Date(T1.getTime() - 1).toISOString() })).nodes).toEqual([]);
      expect((await closure(timeline, "e0", { direction: "DOWNSTREAM" })).nodes).toEqual(["e1@1", "e2@2"]);
    });

    test("first cuts the result, keeps the nearest and says so", async () => {
      const two = await closure(chain, "c3", { first: 2 });
      expect(two).toMatchObject({ nodes: ["c2@1", "c1@2"], edges: ["c1>c2", "c2>c3"], truncated: true });
      expect((await closure(chain, "c3", { first: 3 })).truncated).toBe(false);
      expect((await closure(chain, "c3", { first: 0 })).nodes).toEqual([]);
      expect((await closure(chain, "c3", { first: 0 })).truncated).toBe(true);

      // 30 parents at depth 1, 30 grandparents at depth 2: 40 keeps every parent and 10 grandparents
      const forty = await closure(fan, "hub", { first: 40 });
      expect(forty.truncated).toBe(true);
      expect(forty.nodes).toHaveLength(40);
      expect(forty.nodes.slice(0, 30)).toEqual(byId(fan, ...Array.from({ length: 30 }, (_, i) => `p${String(i).padStart(2, "0")}`)).map((n) => `${n}@1`));
      expect(forty.nodes.slice(30).every((n) => /^g\d\d@2$/.test(n))).toBe(true);
      // every edge returned joins two returned artifacts (or the root)
      const kept = new Set(["hub", ...forty.nodes.map((n) => n.split("@")[0])]);
      expect(forty.edges.every((e) => e.split(">").every((name) => kept.has(name)))).toBe(true);
      expect(forty.edges).toHaveLength(40);
      // cut inside the parents' level: 10 of the 30 parents (which ones is unspecified)
      const ten = await closure(fan, "hub", { first: 10 });
      expect(ten.nodes).toHaveLength(10);
      expect(ten.nodes.every((n) => /^p\d\d@1$/.test(n))).toBe(true);
      expect(ten.truncated).toBe(true);
      expect((await closure(fan, "hub", { first: 10, maxDepth: 3 })).nodes).toEqual(
        byId(fan, ...Array.from({ length: 30 }, (_, i) => `p${String(i).padStart(2, "0")}`)).slice(0, 10).map((n) => `${n}@1`),
      );
      expect((await closure(fan, "hub", { first: 60 })).truncated).toBe(false);
    });

    test("a closure larger than the default cap is cut at 1,000, nearest first, and says so", async () => {
      const q = `query($id: ID!, $first: Int) { lineage(artifactId: $id, first: $first) { truncated nodeIds nodeDepths edgeSourceIds } }`;
      const cut = (await t.gql(q, { id: longIds[LONG - 1] })).data!.lineage;
      expect(cut.truncated).toBe(true);
      expect(cut.nodeIds).toHaveLength(1_000);
      expect(cut.nodeIds[0]).toBe(longIds[LONG - 2]);
      expect(cut.nodeIds[999]).toBe(longIds[LONG - 1_001]);
      expect(cut.nodeDepths[999]).toBe(1_000);
      expect(cut.edgeSourceIds).toHaveLength(1_000);
      const whole = (await t.gql(q, { id: longIds[LONG - 1], first: 50_000 })).data!.lineage;
      expect(whole.truncated).toBe(false);
      expect(whole.nodeIds).toHaveLength(LONG - 1);
      expect(whole.nodeDepths[LONG - 2]).toBe(LONG - 1);
    });

    test("nodes can carry their full artifact records, read in the same statement", async () => {
      const res = await t.gql(
        `query($id: ID!) { lineage(artifactId: $id) { root { id originalName artifactType } nodes { depth artifact { id originalName artifactType } }
           edges { source { originalName } target { originalName } } } }`,
        { id: chain.id("c2") },
      );
      expect(res.errors).toBeUndefined();
      expect(res.data!.lineage).toEqual({
        root: { id: chain.id("c2"), originalName: "chain/c2", artifactType: "csv" },
        nodes: [
          { depth: 1, artifact: { id: chain.id("c1"), originalName: "chain/c1", artifactType: "csv" } },
          { depth: 2, artifact: { id: chain.id("c0"), originalName: "chain/c0", artifactType: "csv" } },
        ],
        edges: [
          { source: { originalName: "chain/c0" }, target: { originalName: "chain/c1" } },
          { source: { originalName: "chain/c1" }, target: { originalName: "chain/c2" } },
        ],
      });
    });

    test("the columnar lists carry the same data as nodes and edges, in the same order", async () => {
      const res = await t.gql(
        `query($id: ID!) { lineage(artifactId: $id, direction: DOWNSTREAM) { nodeIds nodeDepths edgeSourceIds edgeTargetIds
           nodes { artifactId depth } edges { sourceId targetId } } }`,
        { id: diamond.id("d0") },
      );
      expect(res.errors).toBeUndefined();
      const l = res.data!.lineage;
      expect(l.nodeIds).toEqual(l.nodes.map((n: any) => n.artifactId));
      expect(l.nodeDepths).toEqual(l.nodes.map((n: any) => n.depth));
      expect(l.edgeSourceIds).toEqual(l.edges.map((e: any) => e.sourceId));
      expect(l.edgeTargetIds).toEqual(l.edges.map((e: any) => e.targetId));
      expect(diamond.names(l.nodeIds)).toEqual([...byId(diamond, "d1", "d2"), "d3"]);
      expect(l.nodeDepths).toEqual([1, 1, 2]);
    });

    test("edge details and artifact fields asked for through fragments and aliases are read", async () => {
      const res = await t.gql(
        `query($id: ID!) { lineage(artifactId: $id) { ...Graph } }
         fragment Graph on Lineage { nodes { a: artifact { ... on Artifact { name: originalName } } } edges { ...Bits } }
         fragment Bits on LineageEdge { how: kind stepBoundary createdAt run { runId } }`,
        { id: chain.id("c1") },
      );
      // the seeded edges name a run that was never recorded: run is null, with a NOT_FOUND at its path
      expect(errorCodes(res)).toEqual(["NOT_FOUND"]);
      expect(res.errors![0].path).toEqual(["lineage", "edges", 0, "run"]);
      expect(res.data!.lineage.nodes).toEqual([{ a: { name: "chain/c0" } }]);
      expect(res.data!.lineage.edges).toEqual([{ how: "INDEPENDENT", stepBoundary: true, createdAt: expect.any(String), run: null }]);
    });

    test("a closure is one SQL statement, whatever its size", async () => {
      for (const [graph, root] of [
        [chain, "c3"],
        [fan, "hub"],
      ] as const) {
        const before = t.app.database.statementCount();
        const res = await t.gql(`query($id: ID!) { lineage(artifactId: $id) { nodes { depth artifact { id } } edges { source { id } target { id } } } }`, {
          id: graph.id(root),
        });
        expect(res.errors).toBeUndefined();
        expect(t.app.database.statementCount() - before).toBe(1);
      }
      const before = t.app.database.statementCount();
      await t.gql(`query($id: ID!) { lineage(artifactId: $id) { nodes { artifact { originalName } } } }`, { id: fan.id("hub") });
      expect(t.app.database.statementCount() - before).toBe(1);
    });
  });

  describe("one hop", () => {
    test("parents and children are plain artifact lists; parentEdges and childEdges carry the details", async () => {
      const res = await t.gql(
        `query($id: ID!) { artifact(id: $id) { parents { id } children { id }
           parentEdges { source { id } kind groupId stepBoundary runId } childEdges { target { id } } } }`,
        { id: diamond.id("d1") },
      );
      expect(res.errors).toBeUndefined();
      expect(res.data!.artifact).toEqual({
        parents: [{ id: diamond.id("d0") }],
        children: [{ id: diamond.id("d3") }],
        parentEdges: [{ source: { id: diamond.id("d0") }, kind: "INDEPENDENT", groupId: "grp_diamond_d0_d1", stepBoundary: true, runId: diamond.run }],
        childEdges: [{ target: { id: diamond.id("d3") } }],
      });
      const top = await t.gql(`query($id: ID!) { artifact(id: $id) { parents { id } children { originalName } } }`, { id: diamond.id("d0") });
      expect(top.data!.artifact).toEqual({ parents: [], children: [{ originalName: "diamond/d1" }, { originalName: "diamond/d2" }] });
    });

    test("derivations group the edges into an artifact by run and groupId: all the inputs of each", async () => {
      const res = await t.gql(
        `query($id: ID!) { artifact(id: $id) { derivations { groupId kind runId target { id } sources { id } edges { source { id } } } } }`,
        { id: joint.id("z") },
      );
      expect(res.errors).toBeUndefined();
      const derivations = res.data!.artifact.derivations;
      expect(derivations.map((d: any) => ({ ...d, sources: joint.names(d.sources.map((s: any) => s.id)), edges: d.edges.length, target: joint.name(d.target.id) }))).toEqual([
        { groupId: "grp_joint_xy", kind: "CO_INPUT", runId: joint.run, target: "z", sources: ["x", "y"], edges: 2 },
        { groupId: "grp_joint_w_z", kind: "INDEPENDENT", runId: expect.not.stringMatching(joint.run), target: "z", sources: ["w"], edges: 1 },
      ]);
      const none = await t.gql(`query($id: ID!) { artifact(id: $id) { derivations { groupId } } }`, { id: joint.id("x") });
      expect(none.data!.artifact.derivations).toEqual([]);
    });

    test("a cycle is just one more parent", async () => {
      const res = await t.gql(`query($id: ID!) { artifact(id: $id) { parents { id } children { id } } }`, { id: cycle.id("k0") });
      expect(res.data!.artifact).toEqual({ parents: [{ id: cycle.id("k2") }], children: [{ id: cycle.id("k1") }] });
    });
  });

  describe("bad input gets a typed error", () => {
    test.each([
      ["an unknown artifact", { id: artifactIdFor("csv", "nothing") }, "NOT_FOUND", "artifactId"],
      ["a malformed id", { id: "art_nope" }, "INVALID_ID", "artifactId"],
      ["a run id", { id: newRunId() }, "INVALID_ID", "artifactId"],
      ["a negative maxDepth", { maxDepth: -1 }, "INVALID_ARGUMENT", "maxDepth"],
      ["first above the cap", { first: 50_001 }, "PAGE_SIZE", "first"],
      ["a negative first", { first: -1 }, "PAGE_SIZE", "first"],
      ["an empty type filter", { types: [] }, "INVALID_ARGUMENT", "artifactTypes"],
    ])("%s", async (_name, vars, code, field) => {
      const res = await t.gql(LINEAGE, { id: chain.id("c3"), ...vars });
      expect(errorCodes(res)).toEqual([code]);
      expect(res.errors![0].extensions!.field).toBe(field);
      expect(res.data).toBeNull();
    });

    test("the cap is stated in the error", async () => {
      const res = await t.gql(LINEAGE, { id: chain.id("c3"), first: 50_001 });
      expect(res.errors![0].extensions).toMatchObject({ code: "PAGE_SIZE", field: "first", value: 50_001, max: 50_000 });
    });
  });
});
