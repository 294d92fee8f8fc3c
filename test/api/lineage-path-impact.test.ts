import { seedRuns, type SeededRuns } from "../support/graph-seed";
import { createTestApp, errorCodes, type TestApp } from "../support/test-app";

/**
 * lineagePath and impact over one store:
 *
 *   extract ─clean→ cleaned ─model→ model.bin ─score→ scores ─report→ figure ─→ metric (output to output)
 *                       └────────────────────────────shortcut→ figure  (a second, shorter way to the figure)
 *   cleaned is also used by audit (derives nothing); scores, figure and metric are runs of pipeline "nightly".
 *   Datasets: cleaned is a version of db/cleaned (columns id, email); scores of db/scores (columns id, score).
 */
const PATHS = `query($from: ID!, $to: ID!, $maxPaths: Int, $maxDepth: Int) { lineagePath(from: $from, to: $to, maxPaths: $maxPaths, maxDepth: $maxDepth) {
  truncated paths { nodeIds length edges { kind source target runId derivationKind } } } }`;

describe("lineagePath and impact", () => {
  let t: TestApp;
  let g: SeededRuns;

  beforeAll(async () => {
    t = await createTestApp();
    const db = t.app.database.prisma;
    g = await seedRuns(
      db,
      "why",
      {
        extract: "csv",
        cleaned: { type: "dataset", dataset: ["db", "cleaned"] },
        "model.bin": "bin",
        scores: { type: "dataset", dataset: ["db", "scores"] },
        figure: "png",
        metric: "json",
      },
      [
        { name: "clean", inputs: [["extract", "raw"]], outputs: [["cleaned", "output"]], derivations: [{ from: "extract", to: "cleaned" }] },
        { name: "audit", inputs: [["cleaned", "data"]] },
        { name: "model", inputs: [["cleaned", "train"]], outputs: [["model.bin", "model"]], derivations: [{ from: "cleaned", to: "model.bin" }] },
        { name: "score", inputs: [["model.bin", "model"]], outputs: [["scores", "output"]], derivations: [{ from: "model.bin", to: "scores" }], pipeline: "nightly" },
        {
          name: "report",
          inputs: [["scores", "data"]],
          outputs: [["figure", "figure"], ["metric", "metric"]],
          derivations: [{ from: "scores", to: "figure" }, { from: "figure", to: "metric", kind: "OUTPUT_TO_OUTPUT" }],
          pipeline: "nightly",
        },
        { name: "shortcut", operation: "report", inputs: [["cleaned", "data"]], outputs: [["figure", "figure"]], derivations: [{ from: "cleaned", to: "figure" }], pipeline: "nightly" },
      ],
    );
    await db.datasetColumn.createMany({
      data: [
        { artifactId: g.id("cleaned"), field: "id", position: 0 },
        { artifactId: g.id("cleaned"), field: "email", position: 1 },
        { artifactId: g.id("scores"), field: "id", position: 0 },
        { artifactId: g.id("scores"), field: "score", position: 1 },
      ],
    });
    await db.columnEdge.create({ data: { sourceId: g.id("cleaned"), sourceField: "id", targetId: g.id("scores"), targetField: "id", runId: g.id("score"), type: "DIRECT", subtype: "IDENTITY" } });
  });
  afterAll(() => t.close());

  const paths = async (variables: Record<string, unknown>) => {
    const res = await t.gql(PATHS, variables);
    expect(res.errors).toBeUndefined();
    return g.named(res.data!.lineagePath);
  };

  test("why does the metric depend on the extract: every derivation path, shortest first, each hop with its edge and run", async () => {
    const answer = await paths({ from: g.id("extract"), to: g.id("metric") });
    expect(answer.truncated).toBe(false);
    expect(answer.paths.map((p: any) => `${p.length}: ${p.nodeIds.join(" > ")}`)).toEqual([
      "3: extract > cleaned > figure > metric",
      "5: extract > cleaned > model.bin > scores > figure > metric",
    ]);
    expect(answer.paths[0].edges.map((e: any) => `${e.kind} ${e.source} -> ${e.target} by ${e.runId} ${e.derivationKind}`)).toEqual([
      "DERIVED extract -> cleaned by clean INDEPENDENT",
      "DERIVED cleaned -> figure by shortcut INDEPENDENT",
      "DERIVED figure -> metric by report OUTPUT_TO_OUTPUT",
    ]);
  });

  test("asked the other way round (to is the ancestor) the same paths come, listed from `from`", async () => {
    const answer = await paths({ from: g.id("metric"), to: g.id("extract") });
    expect(answer.paths.map((p: any) => p.nodeIds.join(" > "))).toEqual(["metric > figure > cleaned > extract", "metric > figure > scores > model.bin > cleaned > extract"]);
    expect(answer.paths[0].edges[0]).toMatchObject({ source: "figure", target: "metric" });
  });

  test("maxPaths cuts the list (truncated); maxDepth leaves longer paths out; unrelated artifacts have none", async () => {
    const one = await paths({ from: g.id("extract"), to: g.id("metric"), maxPaths: 1 });
    expect(one).toMatchObject({ truncated: true, paths: [{ length: 3 }] });
    const short = await paths({ from: g.id("extract"), to: g.id("metric"), maxDepth: 4 });
    expect(short.paths.map((p: any) => p.length)).toEqual([3]);
    expect(await paths({ from: g.id("model.bin"), to: g.id("extract") })).toMatchObject({ paths: [{ nodeIds: ["model.bin", "cleaned", "extract"], length: 2 }] });
    expect(await paths({ from: g.id("figure"), to: g.id("model.bin") })).toMatchObject({ paths: [{ nodeIds: ["figure", "scores", "model.bin"] }] });
    expect(await paths({ from: g.id("metric"), to: g.id("metric") })).toEqual({ truncated: false, paths: [] });
  });

  test("between two columns: the column edges", async () => {
    const answer = await paths({ from: `col:${g.id("cleaned")}:id`, to: `col:${g.id("scores")}:id` });
    expect(answer.paths).toEqual([{ nodeIds: ["col:cleaned:id", "col:scores:id"], length: 1, edges: [{ kind: "COLUMN_DIRECT", source: "col:cleaned:id", target: "col:scores:id", runId: "score", derivationKind: null }] }]);
  });

  test("bad arguments: a run, mixed kinds, maxPaths and maxDepth out of range, unknown ids", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ from: g.id("clean"), to: g.id("metric") }, "INVALID_ARGUMENT", "from"],
      [{ from: g.id("cleaned"), to: `col:${g.id("scores")}:id` }, "INVALID_ARGUMENT", "to"],
      [{ from: g.id("extract"), to: g.id("metric"), maxPaths: 0 }, "INVALID_ARGUMENT", "maxPaths"],
      [{ from: g.id("extract"), to: g.id("metric"), maxDepth: 51 }, "INVALID_ARGUMENT", "maxDepth"],
      [{ from: `art_${"0".repeat(40)}`, to: g.id("metric") }, "NOT_FOUND", "from"],
      [{ from: g.id("extract"), to: `col:${g.id("scores")}:nope` }, "INVALID_ARGUMENT", "to"],
      [{ from: "x", to: g.id("metric") }, "INVALID_ID", "from"],
    ];
    for (const [variables, code, field] of cases) {
      const res = await t.gql(PATHS, variables);
      expect(errorCodes(res)).toEqual([code]);
      expect(res.errors![0].extensions).toMatchObject({ field });
    }
    const missingColumn = await t.gql(PATHS, { from: `col:${g.id("cleaned")}:id`, to: `col:${g.id("scores")}:nope` });
    expect(missingColumn.errors![0].extensions).toMatchObject({ code: "NOT_FOUND", field: "to" });
  });

  const IMPACT = `query($id: ID!, $direction: GraphDirection, $maxDepth: Int) { impact(id: $id, direction: $direction, maxDepth: $maxDepth) {
    root direction truncated totals { kind count } byDepth { depth counts { kind count } nodes(first: 50) { edges { node { id kind depth } } } } } }`;
  const counts = (list: { kind: string; count: number }[]) => Object.fromEntries(list.filter((c) => c.count > 0).map((c) => [c.kind, c.count]));

  test("impact downstream of the extract: by kind, by depth, and each depth's nodes", async () => {
    const res = await t.gql(IMPACT, { id: g.id("extract") });
    expect(res.errors).toBeUndefined();
    const impact = g.named(res.data!.impact);
    expect(impact).toMatchObject({ root: "extract", direction: "DOWNSTREAM", truncated: false });
    // cleaned and scores are versions of datasets db/cleaned and db/scores (2 columns each);
    // jobs are the runs' operations (clean, audit, model, score, report — shortcut runs "report" too); one pipeline.
    expect(counts(impact.totals)).toEqual({ ARTIFACT: 3, DATASET: 2, COLUMN: 4, RUN: 6, JOB: 5, PIPELINE: 1 });
    expect(impact.byDepth.map((d: any) => [d.depth, counts(d.counts), d.nodes.edges.map((e: any) => e.node.id).sort()])).toEqual([
      [1, { DATASET: 1, COLUMN: 2, RUN: 1, JOB: 1 }, ["clean", "cleaned"]],
      [2, { ARTIFACT: 2, RUN: 3, JOB: 3, PIPELINE: 1 }, ["audit", "figure", "model", "model.bin", "shortcut"]],
      [3, { ARTIFACT: 1, DATASET: 1, COLUMN: 2, RUN: 2, JOB: 1 }, ["metric", "report", "score", "scores"]],
    ]);
    expect(impact.byDepth[0].nodes.edges.every((e: any) => e.node.depth === 1)).toBe(true);
  });

  test("maxDepth stops the count; UPSTREAM counts ancestors; a column's impact counts columns", async () => {
    const near = g.named((await t.gql(IMPACT, { id: g.id("extract"), maxDepth: 1 })).data!.impact);
    expect(counts(near.totals)).toEqual({ DATASET: 1, COLUMN: 2, RUN: 1, JOB: 1 });
    const up = g.named((await t.gql(IMPACT, { id: g.id("scores"), direction: "UPSTREAM" })).data!.impact);
    expect(counts(up.totals)).toEqual({ ARTIFACT: 2, DATASET: 1, COLUMN: 2, RUN: 3, JOB: 3, PIPELINE: 1 });
    expect(up.byDepth.map((d: any) => d.depth)).toEqual([-3, -2, -1]);
    const column = g.named((await t.gql(IMPACT, { id: `col:${g.id("cleaned")}:id` })).data!.impact);
    expect(counts(column.totals)).toEqual({ COLUMN: 1, DATASET: 1, RUN: 1, JOB: 1, PIPELINE: 1 });
  });

  test("a depth's nodes page with cursors, each once", async () => {
    const query = `query($id: ID!, $after: String) { impact(id: $id) { byDepth { depth nodes(first: 2, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } } } }`;
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const res: any = await t.gql(query, { id: g.id("extract"), after });
      const depth2 = res.data!.impact.byDepth.find((d: { depth: number }) => d.depth === 2);
      seen.push(...depth2.nodes.edges.map((e: { node: { id: string } }) => g.name(e.node.id)));
      if (!depth2.nodes.pageInfo.hasNextPage) break;
      after = depth2.nodes.pageInfo.endCursor;
    }
    expect(seen.sort()).toEqual(["audit", "figure", "model", "model.bin", "shortcut"]);
  });
});
