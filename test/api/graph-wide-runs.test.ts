import { LINEAGE_GRAPH_READS } from "../../src/services/lineage-graph";
import type { GraphReadClient } from "../../src/services/lineage-graph/read-client";
import { seedRuns, type SeededRuns } from "../support/graph-seed";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * expand and lineageGraph next to wide runs: `scatter` made 300 parts from one `source` (each part its own
 * derivation, every one of them from {source}: one group id), and `join` made `joined` from all 300
 * parts together. Expanding `source` downstream, or a part downstream (the join and its 299 other
 * co-inputs), or drawing 3 hops around a part, reads a few rows per edge, not the whole run per edge:
 * on SQLite, which plans without statistics, the co-inputs are looked up by their target and the
 * links by the artifact, never by the run's or the group's index (those made them quadratic: a
 * minute to expand a part of 20,000, 11 s for its 3-hop graph).
 */
const PARTS = 300;

describe("expand and lineageGraph next to wide runs", () => {
  let t: TestApp;
  let g: SeededRuns;

  beforeAll(async () => {
    t = await createTestApp();
    const parts = Array.from({ length: PARTS }, (_, i) => `part${i}`);
    g = await seedRuns(t.app.database.prisma, "wide", { source: "csv", joined: "csv", ...Object.fromEntries(parts.map((p) => [p, "csv"])) }, [
      { name: "scatter", inputs: [["source", "in"]], outputs: parts.map((p) => [p, "part"] as [string, string]), derivations: parts.map((p) => ({ from: "source", to: p, group: "fromSource" })) },
      { name: "join", inputs: parts.map((p) => [p, "parts"] as [string, string]), outputs: [["joined", "out"]], derivations: parts.map((p) => ({ from: p, to: "joined", group: "all" })) },
    ]);
  });
  afterAll(() => t.close());

  const expand = (nodeId: string) => t.gql(`query($id: ID!) { expand(nodeId: $id, direction: DOWNSTREAM, first: 500) { nodes { id depth } edges { kind source target } } }`, { id: nodeId });

  test("a part downstream: the join, and its other 299 inputs as co-inputs, each edge once", async () => {
    const res = await expand(g.id("part7"));
    expect(res.errors).toBeUndefined();
    const { nodes, edges } = g.named(res.data!.expand) as { nodes: { id: string; depth: number }[]; edges: { kind: string; source: string; target: string }[] };
    expect(nodes.filter((n) => n.depth === 1)).toEqual([{ id: "join", depth: 1 }]);
    expect(nodes.filter((n) => n.depth === 0).map((n) => n.id).sort()).toEqual(Array.from({ length: PARTS }, (_, i) => `part${i}`).filter((p) => p !== "part7").sort());
    expect(edges).toHaveLength(PARTS);
    expect(new Set(edges.map((e) => `${e.kind} ${e.source} ${e.target}`)).size).toBe(PARTS);
    expect(edges.every((e) => e.kind === "USED" && e.target === "join")).toBe(true);
  });

  test("the source downstream: the scatter run alone (its parts have no other sources)", async () => {
    const res = await expand(g.id("source"));
    expect(res.errors).toBeUndefined();
    expect(g.named(res.data!.expand)).toEqual({ nodes: [{ id: "scatter", depth: 1 }], edges: [{ kind: "USED", source: "source", target: "scatter" }] });
  });

  test("lineageGraph of a part, 3 hops both ways: what does not fit is counted, not drawn", async () => {
    const res = await t.gql(`query($id: ID!) { lineageGraph(roots: [$id], direction: BOTH, depth: 3) { nodes { id hiddenUpstream hiddenDownstream } } }`, { id: g.id("part7") });
    expect(res.errors).toBeUndefined();
    // The join comes with its whole group of 300 inputs, more than the default 200 nodes: it stays a "+1" on the part,
    // and the scatter run's 299 other outputs a "+299" on it.
    expect(g.named(res.data!.lineageGraph.nodes)).toEqual([
      { id: "part7", hiddenUpstream: 0, hiddenDownstream: 1 },
      { id: "scatter", hiddenUpstream: 0, hiddenDownstream: PARTS - 1 },
      { id: "source", hiddenUpstream: 0, hiddenDownstream: 0 },
    ]);
  });

  test("SQLite: a 3-hop graph reads the co-inputs' edges by their target and the runs' links by the artifact, never by the run's index", async () => {
    if (t.app.database.provider !== "sqlite") return expect(t.app.database.provider).toBe("postgres");
    const statements: { sql: string; params: readonly unknown[] }[] = [];
    const reader: GraphReadClient = { provider: "sqlite", readRows: (sql, params) => (statements.push({ sql, params }), t.app.database.readRows(sql, params)) };
    await LINEAGE_GRAPH_READS.lineageGraph({ roots: [g.id("part7")], direction: "BOTH", depth: 3, first: 200, asOf: null, stepBoundaryOnly: false, columns: false, layout: false }, { reader });
    const neighbourhood = statements.find((s) => s.sql.includes(`FROM "ProvenanceEdge" g WHERE`));
    expect(neighbourhood).toBeDefined();
    const plan = await t.app.database.readRows(`EXPLAIN QUERY PLAN ${neighbourhood!.sql}`, neighbourhood!.params);
    const details = plan.rows.map((row) => String(row[plan.columnNames.indexOf("detail")]));
    expect(details.filter((d) => /^SEARCH g /.test(d))).toEqual([expect.stringContaining("ProvenanceEdge_targetId_")]);
    // A run's links are read by the run only for its own neighbour counts (its inputs, its outputs: one run
    // each); whether a link stands behind each edge the runs recorded is asked of the edge's artifact.
    expect(details.filter((d) => /^SEARCH l .*\(runId=\? AND direction=\?/.test(d))).toHaveLength(2);
  });

  test("SQLite: the co-inputs are read by their target and their own links, not by the run's or the group's index", async () => {
    if (t.app.database.provider !== "sqlite") return expect(t.app.database.provider).toBe("postgres");
    const statements: { sql: string; params: readonly unknown[] }[] = [];
    const reader: GraphReadClient = { provider: "sqlite", readRows: (sql, params) => (statements.push({ sql, params }), t.app.database.readRows(sql, params)) };
    await LINEAGE_GRAPH_READS.expand({ nodeId: g.id("source"), direction: "DOWNSTREAM", first: 50, after: null, asOf: null, stepBoundaryOnly: false, columns: false }, { reader });
    const coInputs = statements.find((s) => s.sql.includes("'coinput'"));
    expect(coInputs).toBeDefined();
    const plan = await t.app.database.readRows(`EXPLAIN QUERY PLAN ${coInputs!.sql}`, coInputs!.params);
    const details = plan.rows.map((row) => String(row[plan.columnNames.indexOf("detail")]));
    expect(details.filter((d) => /^SEARCH e2 /.test(d))).toEqual([expect.stringContaining("ProvenanceEdge_targetId_")]);
    // The node's own links (its roles) are read by it, and every co-input's by the co-input: never by the run.
    const links = details.filter((d) => /^SEARCH l /.test(d));
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((d) => !/ExecutionArtifact_artifactId_direction_idx \(artifactId=\? AND direction=\?\)/.test(d))).toEqual([]);
  });
});
