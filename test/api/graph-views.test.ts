import { spawnSync } from "node:child_process";
import type { Db } from "../../src/db/client";
import { type ArtifactId, newRunId, operationIdFor, type RunId, specIdFrom } from "../../src/services/ids";
import { seedArtifactRow } from "../support/seed";
import { createTestApp, errorCodes, type TestApp } from "../support/test-app";

/**
 * The three-step pipeline "churn" with a passthrough:
 *   step 1 ingest (CREATOR):  raw.csv → table (part-0, part-1), report
 *   step 2 select (CURATOR):  candidates (part-0, part-1) → selected (part-0 re-emitted as is)
 *   step 3 train  (CREATOR):  data (part-0, fed by step 1 and, through the curator, step 2) + config → model
 */
async function seedChurnPipeline(db: Db) {
  const operation = async (name: string, kind: string) => {
    const id = operationIdFor(name, "1");
    await db.operation.create({ data: { id, name, version: "1", kind, declaration: "{}" } });
    return id;
  };
  const ingest = await operation("ingest", "CREATOR");
  const select = await operation("select", "CURATOR");
  const train = await operation("train", "CREATOR");
  const roles = (entries: [string, string][]) => JSON.stringify(entries.map(([role, artifactType]) => ({ role, artifactType })));
  await db.pipelineStep.createMany({
    data: [
      { pipeline: "churn", step: 1, operationId: ingest, inputRoles: roles([["raw", "csv"]]), outputRoles: roles([["table", "parquet"], ["report", "txt"]]) },
      { pipeline: "churn", step: 2, operationId: select, inputRoles: roles([["candidates", "parquet"]]), outputRoles: roles([["selected", "parquet"]]) },
      { pipeline: "churn", step: 3, operationId: train, inputRoles: roles([["data", "parquet"], ["config", "json"]]), outputRoles: roles([["model", "bin"]]) },
    ],
  });
  await db.pipelineFlow.createMany({
    data: [
      { pipeline: "churn", step: 2, inputRole: "candidates", sourceStep: 1, sourceRole: "table" },
      { pipeline: "churn", step: 3, inputRole: "data", sourceStep: 1, sourceRole: "table" },
      { pipeline: "churn", step: 3, inputRole: "data", sourceStep: 2, sourceRole: "selected" },
    ],
  });

  const raw = seedArtifactRow("raw.csv", "csv");
  const part0 = seedArtifactRow("part-0.parquet", "parquet");
  const part1 = seedArtifactRow("part-1.parquet", "parquet");
  const report = seedArtifactRow("report.txt", "txt");
  const config = seedArtifactRow("config.json", "json");
  const model = seedArtifactRow("model.bin", "bin");
  const elsewhere = seedArtifactRow("elsewhere.csv", "csv");
  await db.artifact.createMany({ data: [raw, part0, part1, report, config, model, elsewhere] });

  type Link = [ArtifactId, "CONSUMED" | "PRODUCED", string, number];
  const execution = async (operationId: string, pipeline: string, step: number, links: Link[]) => {
    const runId = newRunId();
    await db.execution.create({
      data: {
        runId,
        specId: specIdFrom(`${pipeline}/${step}/${runId}`),
        operationId,
        status: "COMPLETED",
        pipeline,
        step,
        links: { create: links.map(([artifactId, direction, role, position]) => ({ artifactId, direction, role, position })) },
      },
    });
    return runId;
  };
  const run1 = await execution(ingest, "churn", 1, [
    [raw.id, "CONSUMED", "raw", 0],
    [part0.id, "PRODUCED", "table", 0],
    [part1.id, "PRODUCED", "table", 1],
    [report.id, "PRODUCED", "report", 0],
  ]);
  const run2 = await execution(select, "churn", 2, [
    [part0.id, "CONSUMED", "candidates", 0],
    [part1.id, "CONSUMED", "candidates", 1],
    [part0.id, "PRODUCED", "selected", 0],
  ]);
  const run3 = await execution(train, "churn", 3, [
    [part0.id, "CONSUMED", "data", 0],
    [config.id, "CONSUMED", "config", 0],
    [model.id, "PRODUCED", "model", 0],
  ]);
  // Another pipeline reading part-0: neither its run nor its edge belongs to churn's graphs.
  const otherRun = await execution(train, "other", 1, [
    [part0.id, "CONSUMED", "data", 0],
    [elsewhere.id, "PRODUCED", "model", 0],
  ]);
  const edge = (sourceId: ArtifactId, targetId: ArtifactId, runId: RunId, kind: string, sourceType: string, targetType: string) => ({
    sourceId,
    targetId,
    runId,
    kind,
    sourceType,
    targetType,
  });
  await db.provenanceEdge.createMany({
    data: [
      edge(raw.id, part0.id, run1, "INDEPENDENT", "csv", "parquet"),
      edge(raw.id, part1.id, run1, "INDEPENDENT", "csv", "parquet"),
      edge(raw.id, report.id, run1, "INDEPENDENT", "csv", "txt"),
      edge(part0.id, model.id, run3, "INDEPENDENT", "parquet", "bin"),
      edge(config.id, model.id, run3, "CONFIG_REFERENCE", "json", "bin"),
      edge(part0.id, elsewhere.id, otherRun, "INDEPENDENT", "parquet", "csv"),
    ],
  });
  return { run1, run2, run3, raw: raw.id, part0: part0.id, part1: part1.id, report: report.id, config: config.id, model: model.id };
}

const LAYOUT = `pipeline columnCount steps
  columns { index kind step nodeKeys }
  nodes { __typename key kind label column order step }
  edges { from to kind role derivation step backward }`;

/** The graph with every art_…/run_… id replaced by its name in the seed, so expectations read as a drawing. */
function named<T>(graph: T, ids: Record<string, string>): T {
  const names = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
  return JSON.parse(JSON.stringify(graph), (_key, value) => (typeof value === "string" && names.has(value) ? names.get(value) : value)) as T;
}

/** Nodes as "key column.order step" lines and edges as "from -> to KIND role step [backward]": one line per drawn thing. */
function drawing(graph: any) {
  return {
    columns: graph.columns.map((c: any) => `${c.index} ${c.kind} step=${c.step} [${c.nodeKeys.join(", ")}]`),
    nodes: graph.nodes.map((n: any) => `${n.__typename} ${n.key} "${n.label}" ${n.kind} @${n.column}.${n.order} step=${n.step}`),
    edges: graph.edges.map(
      (e: any) => `${e.from} -> ${e.to} ${e.kind} ${e.role ?? e.derivation} step=${e.step}${e.backward ? " backward" : ""}`,
    ),
  };
}

function renderSvg(dot: string) {
  return spawnSync("dot", ["-Tsvg"], { input: dot, encoding: "utf8", timeout: 30_000 });
}

describe("macro and micro graphs of a pipeline", () => {
  let t: TestApp;
  let ids: Awaited<ReturnType<typeof seedChurnPipeline>>;

  beforeAll(async () => {
    t = await createTestApp();
    ids = await seedChurnPipeline(t.app.database.prisma);
  });
  afterAll(() => t.close());

  test("macroGraph of a three-step pipeline with a passthrough: columns, order, steps and backward edges", async () => {
    const res = await t.gql(`{ macroGraph(pipeline: "churn") { ${LAYOUT} dot } }`);
    expect(res.errors).toBeUndefined();
    const graph = res.data!.macroGraph;
    expect(graph).toMatchObject({ pipeline: "churn", columnCount: 7, steps: [1, 2, 3], dot: null });
    expect(drawing(graph)).toEqual({
      columns: [
        "0 DATA step=null [input:3:config, input:1:raw]",
        "1 EXECUTION step=1 [step:1]",
        "2 DATA step=1 [data:1:report, data:1:table]",
        "3 EXECUTION step=2 [step:2]",
        "4 DATA step=2 [data:2:selected]",
        "5 EXECUTION step=3 [step:3]",
        "6 DATA step=3 [data:3:model]",
      ],
      nodes: [
        'MacroRoleNode input:3:config "config" DATA @0.0 step=null',
        'MacroRoleNode input:1:raw "raw" DATA @0.1 step=null',
        'MacroStepNode step:1 "ingest" EXECUTION @1.0 step=1',
        'MacroRoleNode data:1:report "report" DATA @2.0 step=1',
        'MacroRoleNode data:1:table "table" DATA @2.1 step=1',
        'MacroStepNode step:2 "select" EXECUTION @3.0 step=2',
        'MacroRoleNode data:2:selected "selected" DATA @4.0 step=2',
        'MacroStepNode step:3 "train" EXECUTION @5.0 step=3',
        'MacroRoleNode data:3:model "model" DATA @6.0 step=3',
      ],
      edges: [
        // a pipeline input of step 3 reaches over steps 1 and 2
        "input:3:config -> step:3 USED config step=3 backward",
        "input:1:raw -> step:1 USED raw step=1",
        "step:1 -> data:1:report WAS_GENERATED_BY report step=1",
        "step:1 -> data:1:table WAS_GENERATED_BY table step=1",
        "data:1:table -> step:2 USED candidates step=2",
        // the passthrough: step 3 consumes step 1's table directly (dashed) and through the curator
        "data:1:table -> step:3 USED data step=3 backward",
        "step:2 -> data:2:selected WAS_GENERATED_BY selected step=2",
        "data:2:selected -> step:3 USED data step=3",
        "step:3 -> data:3:model WAS_GENERATED_BY model step=3",
      ],
    });
  });

  test("macroGraph nodes expose the step's operation and the role's artifact type", async () => {
    const res = await t.gql(`{ macroGraph(pipeline: "churn") { nodes {
        key ... on MacroStepNode { operation { name version kind } } ... on MacroRoleNode { role artifactType pipelineInput } } } }`);
    expect(res.errors).toBeUndefined();
    const byKey = Object.fromEntries(res.data!.macroGraph.nodes.map((n: any) => [n.key, n]));
    expect(byKey["step:2"]).toEqual({ key: "step:2", operation: { name: "select", version: "1", kind: "CURATOR" } });
    expect(byKey["data:1:table"]).toEqual({ key: "data:1:table", role: "table", artifactType: "parquet", pipelineInput: false });
    expect(byKey["input:3:config"]).toEqual({ key: "input:3:config", role: "config", artifactType: "json", pipelineInput: true });
  });

  test("microGraph of the same pipeline: one node per artifact, the passthrough's edges backward, derivations overlaid", async () => {
    const res = await t.gql(`{ microGraph(pipeline: "churn") { ${LAYOUT} upToStep dot } }`);
    expect(res.errors).toBeUndefined();
    const graph = named(res.data!.microGraph, ids);
    expect(graph).toMatchObject({ pipeline: "churn", columnCount: 7, steps: [1, 2, 3], upToStep: null, dot: null });
    expect(drawing(graph)).toEqual({
      columns: [
        "0 DATA step=null [raw, config]",
        "1 EXECUTION step=1 [run1]",
        "2 DATA step=1 [report, part1, part0]",
        "3 EXECUTION step=2 [run2]",
        // the curator re-emits part-0, which stays where step 1 first produced it
        "4 DATA step=2 []",
        "5 EXECUTION step=3 [run3]",
        "6 DATA step=3 [model]",
      ],
      nodes: [
        'MicroArtifactNode raw "raw.csv" DATA @0.0 step=null',
        'MicroArtifactNode config "config.json" DATA @0.1 step=null',
        'MicroExecutionNode run1 "ingest" EXECUTION @1.0 step=1',
        'MicroArtifactNode report "report.txt" DATA @2.0 step=1',
        'MicroArtifactNode part1 "part-1.parquet" DATA @2.1 step=1',
        'MicroArtifactNode part0 "part-0.parquet" DATA @2.2 step=1',
        'MicroExecutionNode run2 "select" EXECUTION @3.0 step=2',
        'MicroExecutionNode run3 "train" EXECUTION @5.0 step=3',
        'MicroArtifactNode model "model.bin" DATA @6.0 step=3',
      ],
      edges: [
        "raw -> run1 USED raw step=1",
        "raw -> report WAS_DERIVED_FROM INDEPENDENT step=1",
        "raw -> part1 WAS_DERIVED_FROM INDEPENDENT step=1",
        "raw -> part0 WAS_DERIVED_FROM INDEPENDENT step=1",
        "config -> run3 USED config step=3 backward",
        "config -> model WAS_DERIVED_FROM CONFIG_REFERENCE step=3 backward",
        "run1 -> report WAS_GENERATED_BY report step=1",
        "run1 -> part1 WAS_GENERATED_BY table step=1",
        "run1 -> part0 WAS_GENERATED_BY table step=1",
        "part1 -> run2 USED candidates step=2",
        "part0 -> run2 USED candidates step=2",
        // passthrough consumed by a later step: from column 2 into column 5
        "part0 -> run3 USED data step=3 backward",
        "part0 -> model WAS_DERIVED_FROM INDEPENDENT step=3 backward",
        // the curator's re-emission points back left
        "run2 -> part0 WAS_GENERATED_BY selected step=2 backward",
        "run3 -> model WAS_GENERATED_BY model step=3",
      ],
    });
  });

  test("microGraph(upToStep: 2) stops after step 2: later executions, their artifacts and derivations are left out", async () => {
    const res = await t.gql(`{ microGraph(pipeline: "churn", upToStep: 2) { ${LAYOUT} upToStep } }`);
    expect(res.errors).toBeUndefined();
    const graph = named(res.data!.microGraph, ids);
    expect(graph).toMatchObject({ columnCount: 5, steps: [1, 2], upToStep: 2 });
    expect(drawing(graph)).toEqual({
      columns: [
        "0 DATA step=null [raw]",
        "1 EXECUTION step=1 [run1]",
        "2 DATA step=1 [report, part1, part0]",
        "3 EXECUTION step=2 [run2]",
        "4 DATA step=2 []",
      ],
      nodes: [
        'MicroArtifactNode raw "raw.csv" DATA @0.0 step=null',
        'MicroExecutionNode run1 "ingest" EXECUTION @1.0 step=1',
        'MicroArtifactNode report "report.txt" DATA @2.0 step=1',
        'MicroArtifactNode part1 "part-1.parquet" DATA @2.1 step=1',
        'MicroArtifactNode part0 "part-0.parquet" DATA @2.2 step=1',
        'MicroExecutionNode run2 "select" EXECUTION @3.0 step=2',
      ],
      edges: [
        "raw -> run1 USED raw step=1",
        "raw -> report WAS_DERIVED_FROM INDEPENDENT step=1",
        "raw -> part1 WAS_DERIVED_FROM INDEPENDENT step=1",
        "raw -> part0 WAS_DERIVED_FROM INDEPENDENT step=1",
        "run1 -> report WAS_GENERATED_BY report step=1",
        "run1 -> part1 WAS_GENERATED_BY table step=1",
        "run1 -> part0 WAS_GENERATED_BY table step=1",
        "part1 -> run2 USED candidates step=2",
        "part0 -> run2 USED candidates step=2",
        "run2 -> part0 WAS_GENERATED_BY selected step=2 backward",
      ],
    });
  });

  test("replaying step by step: every edge appears no earlier than both of its nodes", async () => {
    for (const view of ["macroGraph", "microGraph"]) {
      const res = await t.gql(`{ ${view}(pipeline: "churn") { nodes { key step } edges { from to step } } }`);
      const graph = res.data![view];
      const stepOf = new Map<string, number | null>(graph.nodes.map((n: any) => [n.key, n.step]));
      for (const edge of graph.edges) {
        expect(stepOf.get(edge.from) ?? 0).toBeLessThanOrEqual(edge.step);
        expect(stepOf.get(edge.to) ?? 0).toBeLessThanOrEqual(edge.step);
      }
    }
  });

  test("microGraph nodes resolve to the stored execution and artifact", async () => {
    const res = await t.gql(`{ microGraph(pipeline: "churn", upToStep: 1) { nodes {
        key ... on MicroExecutionNode { execution { runId status operation { name } } } ... on MicroArtifactNode { pipelineInput artifact { id originalName } } } } }`);
    expect(res.errors).toBeUndefined();
    expect(named(res.data!.microGraph.nodes, ids)).toEqual([
      { key: "raw", pipelineInput: true, artifact: { id: "raw", originalName: "raw.csv" } },
      { key: "run1", execution: { runId: "run1", status: "COMPLETED", operation: { name: "ingest" } } },
      { key: "part1", pipelineInput: false, artifact: { id: "part1", originalName: "part-1.parquet" } },
      { key: "report", pipelineInput: false, artifact: { id: "report", originalName: "report.txt" } },
      { key: "part0", pipelineInput: false, artifact: { id: "part0", originalName: "part-0.parquet" } },
    ]);
  });

  test("format: DOT gives Graphviz text with LR columns and dashed backward edges that dot -Tsvg renders", async () => {
    const res = await t.gql(`{ macro: macroGraph(pipeline: "churn", format: DOT) { edges { backward } dot }
                               micro: microGraph(pipeline: "churn", format: DOT) { edges { backward } dot } }`);
    expect(res.errors).toBeUndefined();
    for (const graph of [res.data!.macro, res.data!.micro]) {
      const dot: string = graph.dot;
      expect(dot).toContain("rankdir=LR;");
      expect(dot.match(/\{ rank=same;/g)).toHaveLength(7);
      const backward = graph.edges.filter((e: any) => e.backward).length;
      expect(dot.match(/ -> [^\n]*style=dashed/g)).toHaveLength(backward);
      const rendered = renderSvg(dot);
      expect(rendered.error).toBeUndefined();
      expect(rendered.stderr).toBe("");
      expect(rendered.status).toBe(0);
      expect(rendered.stdout).toContain("<svg");
    }
  });

  test("a pipeline without steps is NOT_FOUND on field pipeline; upToStep < 0 is INVALID_ARGUMENT", async () => {
    const missing = await t.gql(`{ macroGraph(pipeline: "nope") { columnCount } }`);
    expect(errorCodes(missing)).toEqual(["NOT_FOUND"]);
    expect(missing.errors![0].extensions).toMatchObject({ field: "pipeline", kind: "pipeline", id: "nope" });
    const missingMicro = await t.gql(`{ microGraph(pipeline: "nope") { columnCount } }`);
    expect(errorCodes(missingMicro)).toEqual(["NOT_FOUND"]);
    expect(missingMicro.errors![0].extensions).toMatchObject({ field: "pipeline" });
    const negative = await t.gql(`{ microGraph(pipeline: "churn", upToStep: -1) { columnCount } }`);
    expect(errorCodes(negative)).toEqual(["INVALID_ARGUMENT"]);
    expect(negative.errors![0].extensions).toMatchObject({ field: "upToStep" });
  });

  test("loading a graph takes the same number of SQL statements for a pipeline 20 times larger", async () => {
    const db = t.app.database.prisma;
    const wide = await seedChurnPipelineCopy(db, "wide", 20);
    expect(wide).toBe(60);
    const query = (pipeline: string) => `{
      macro: macroGraph(pipeline: "${pipeline}") { nodes { key ... on MacroStepNode { operation { name } } } }
      micro: microGraph(pipeline: "${pipeline}") { nodes { key ... on MicroExecutionNode { execution { runId operation { name } } }
        ... on MicroArtifactNode { artifact { originalName } } } edges { from } } }`;
    const statements = async (pipeline: string, executionNodes: number) => {
      const before = t.app.database.statementCount();
      const res = await t.gql(query(pipeline));
      expect(res.errors).toBeUndefined();
      expect(res.data!.micro.nodes.filter((n: any) => n.execution)).toHaveLength(executionNodes);
      return t.app.database.statementCount() - before;
    };
    const small = await statements("churn", 3);
    const large = await statements("wide", 60);
    expect(large).toBe(small);
    // macro: steps + their operations + flows; micro: steps, executions + operations, links, artifacts,
    // derivations; then one batch each for the nested Operation and Execution.operation fields
    expect(large).toBeLessThanOrEqual(12);
  });
});

/** `copies` runs of each of churn's three steps under another pipeline name (fresh artifacts each time); returns the run count. */
async function seedChurnPipelineCopy(db: Db, pipeline: string, copies: number): Promise<number> {
  const steps = await db.pipelineStep.findMany({ where: { pipeline: "churn" } });
  await db.pipelineStep.createMany({ data: steps.map(({ createdAt: _createdAt, ...step }) => ({ ...step, pipeline })) });
  const flows = await db.pipelineFlow.findMany({ where: { pipeline: "churn" } });
  await db.pipelineFlow.createMany({ data: flows.map((flow) => ({ ...flow, pipeline })) });
  let runs = 0;
  for (let copy = 0; copy < copies; copy++) {
    const input = seedArtifactRow(`${pipeline}-${copy}-in.csv`);
    let previous = input;
    await db.artifact.create({ data: input });
    for (const step of steps) {
      const output = seedArtifactRow(`${pipeline}-${copy}-step${step.step}.out`);
      await db.artifact.create({ data: output });
      const runId = newRunId();
      await db.execution.create({
        data: {
          runId,
          specId: specIdFrom(`${pipeline}/${copy}/${step.step}`),
          operationId: step.operationId,
          status: "COMPLETED",
          pipeline,
          step: step.step,
          links: {
            create: [
              { artifactId: previous.id, direction: "CONSUMED", role: "in", position: 0 },
              { artifactId: output.id, direction: "PRODUCED", role: "out", position: 0 },
            ],
          },
        },
      });
      await db.provenanceEdge.create({
        data: { sourceId: previous.id, targetId: output.id, runId, kind: "INDEPENDENT", sourceType: "csv", targetType: "csv" },
      });
      previous = output;
      runs += 1;
    }
  }
  return runs;
}
