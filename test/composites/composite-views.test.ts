import { buildMacroGraph } from "../../src/services/graph-views/macro-graph";
import { drafts, OPERATIONS, pipelineComposite, stepsOf } from "../support/composite-fixtures";
import { recordCompositeOk, registerComposite } from "../support/composites";
import { recordOk, registerOperation } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

// Issue 9, item 3: the default view shows everything persisted; stepBoundaryOnly the clean high-level
// view through shortcuts; execution.children / parent; macro and micro graphs show a composite run as
// one step and expand it on request.
//
// Pipeline "study": step 1 source (A0, A1, B0, B1) → step 2 the acceptance composite (PERSIST) → step 3 archive (the figures).

describe("reading a composite run", () => {
  let t: TestApp;
  let composite: { execution: { runId: string; outputs: { role: string; artifact: { id: string; originalName: string } }[] }; steps: { runId: string; compositeStep: string }[] };
  const byName: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp();
    for (const operation of OPERATIONS) await registerOperation(t, operation);
    await registerOperation(t, { name: "archive", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "png" }], outputs: [{ role: "archived", artifactType: "png", inferLineageFrom: { inputs: ["data"] } }] });
    await registerComposite(t, pipelineComposite("analysis", "PERSIST"));
    const source = await recordOk(t, { operation: "source", operationVersion: "1", pipeline: "study", step: 1, inputs: [], outputs: [{ role: "raw", artifacts: drafts("in", ["A0.csv", "A1.csv", "B0.csv", "B1.csv"]) }] });
    Object.assign(byName, source.outputIds);
    composite = await recordCompositeOk(t, {
      composite: "analysis",
      compositeVersion: "1",
      pipeline: "study",
      step: 2,
      inputs: [
        { role: "a", artifactIds: [byName["A0.csv"], byName["A1.csv"]] },
        { role: "b", artifactIds: [byName["B0.csv"], byName["B1.csv"]] },
      ],
      steps: stepsOf("study"),
    });
    for (const link of composite.execution.outputs) byName[link.artifact.originalName] = link.artifact.id;
    const figures = composite.execution.outputs.filter((l) => l.role === "figure").map((l) => l.artifact.id);
    await recordOk(t, { operation: "archive", operationVersion: "1", pipeline: "study", step: 3, inputs: [{ role: "data", artifactIds: figures }], outputs: [{ role: "archived", artifacts: drafts("study", ["A0_clean_joined_fig_archived.png", "A1_clean_joined_fig_archived.png"]) }] });
  });
  afterAll(() => t.close());

  const LINEAGE = `query($id: ID!, $sbo: Boolean) { lineage(artifactId: $id, stepBoundaryOnly: $sbo) { nodes { artifact { originalName } depth } edges { source { originalName } target { originalName } kind stepBoundary } } }`;
  const summary = (lineage: { nodes: { artifact: { originalName: string }; depth: number }[]; edges: { source: { originalName: string }; target: { originalName: string }; kind: string; stepBoundary: boolean }[] }) => ({
    nodes: lineage.nodes.map((n) => `${n.artifact.originalName}@${n.depth}`).sort(),
    edges: lineage.edges.map((e) => `${e.source.originalName} → ${e.target.originalName} ${e.kind}${e.stepBoundary ? " boundary" : ""}`).sort(),
  });

  test("stepBoundaryOnly: the metric derives jointly from A0 and B0 through the composite's shortcut, internals skipped", async () => {
    const res = await t.gql(LINEAGE, { id: byName["A0_clean_joined_fig_metric.json"], sbo: true });
    expect(summary(res.data!.lineage)).toEqual({
      nodes: ["A0.csv@1", "B0.csv@1"],
      edges: ["A0.csv → A0_clean_joined_fig_metric.json CO_INPUT boundary", "B0.csv → A0_clean_joined_fig_metric.json CO_INPUT boundary"],
    });
    const archived = await t.gql(LINEAGE, { id: (await t.app.database.prisma.artifact.findFirstOrThrow({ where: { originalName: "A0_clean_joined_fig_archived.png" } })).id, sbo: true });
    expect(summary(archived.data!.lineage).nodes).toEqual(["A0.csv@2", "A0_clean_joined_fig.png@1", "B0.csv@2"]);
  });

  test("the default view shows everything persisted: internal edges and shortcuts", async () => {
    const res = await t.gql(LINEAGE, { id: byName["A0_clean_joined_fig_metric.json"], sbo: false });
    expect(summary(res.data!.lineage)).toEqual({
      nodes: ["A0.csv@1", "A0_clean.csv@3", "A0_clean_joined.csv@2", "A0_clean_joined_fig.png@1", "B0.csv@1"],
      edges: [
        "A0.csv → A0_clean.csv INDEPENDENT",
        "A0.csv → A0_clean_joined_fig.png CO_INPUT boundary",
        "A0.csv → A0_clean_joined_fig_metric.json CO_INPUT boundary",
        "A0_clean.csv → A0_clean_joined.csv CO_INPUT",
        "A0_clean_joined.csv → A0_clean_joined_fig.png INDEPENDENT",
        "A0_clean_joined_fig.png → A0_clean_joined_fig_metric.json OUTPUT_TO_OUTPUT",
        "B0.csv → A0_clean_joined.csv CO_INPUT",
        "B0.csv → A0_clean_joined_fig.png CO_INPUT boundary",
        "B0.csv → A0_clean_joined_fig_metric.json CO_INPUT boundary",
      ],
    });
  });

  test("execution.children lists the steps in the order they ran; execution.parent climbs back", async () => {
    const res = await t.gql(`query($id: ID!) { execution(runId: $id) { operation { name kind } children { compositeStep operation { name } parent { runId } children { runId } } compositeRun { composite { name } } } }`, { id: composite.execution.runId });
    expect(res.data!.execution).toEqual({
      operation: { name: "analysis", kind: "COMPOSITE" },
      children: ["clean", "join", "report"].map((name) => ({ compositeStep: name, operation: { name }, parent: { runId: composite.execution.runId }, children: [] })),
      compositeRun: { composite: { name: "analysis" } },
    });
  });

  const MACRO = `query($expand: Boolean) { macroGraph(pipeline: "study", expandComposites: $expand) { steps columns { index kind step nodeKeys } edges { from to kind role backward } } }`;
  const edgeLines = (edges: { from: string; to: string; kind: string; role: string | null; backward: boolean }[]) => edges.map((e) => `${e.from} -> ${e.to} ${e.kind} ${e.role}${e.backward ? " backward" : ""}`).sort();

  test("macro graph: the composite run is one step; expanded, its steps in a column pair per level, fed and consumed as the step was", async () => {
    const one = (await t.gql(MACRO, { expand: false })).data!.macroGraph;
    expect(one.columns.map((c: { index: number; nodeKeys: string[] }) => [c.index, [...c.nodeKeys].sort()])).toEqual([
      [0, []],
      [1, ["step:1"]],
      [2, ["data:1:raw"]],
      [3, ["step:2"]],
      [4, ["data:2:figure", "data:2:metric"]],
      [5, ["step:3"]],
      [6, ["data:3:archived"]],
    ]);
    const expanded = (await t.gql(MACRO, { expand: true })).data!.macroGraph;
    expect(expanded.steps).toEqual([1, 2, 3]);
    expect(expanded.columns.map((c: { index: number; kind: string; step: number | null; nodeKeys: string[] }) => [c.index, c.kind, c.step, [...c.nodeKeys].sort()])).toEqual([
      [0, "DATA", null, []],
      [1, "EXECUTION", 1, ["step:1"]],
      [2, "DATA", 1, ["data:1:raw"]],
      [3, "EXECUTION", 2, ["step:2/clean"]],
      [4, "DATA", 2, ["data:2:clean.cleaned"]],
      [5, "EXECUTION", 2, ["step:2/join"]],
      [6, "DATA", 2, ["data:2:join.joined"]],
      [7, "EXECUTION", 2, ["step:2/report"]],
      [8, "DATA", 2, ["data:2:figure", "data:2:metric"]],
      [9, "EXECUTION", 3, ["step:3"]],
      [10, "DATA", 3, ["data:3:archived"]],
    ]);
    expect(edgeLines(expanded.edges)).toEqual(
      [
        "step:1 -> data:1:raw WAS_GENERATED_BY raw",
        "data:1:raw -> step:2/clean USED data",
        "data:1:raw -> step:2/join USED right backward",
        "step:2/clean -> data:2:clean.cleaned WAS_GENERATED_BY cleaned",
        "data:2:clean.cleaned -> step:2/join USED left",
        "step:2/join -> data:2:join.joined WAS_GENERATED_BY joined",
        "data:2:join.joined -> step:2/report USED data",
        "step:2/report -> data:2:figure WAS_GENERATED_BY figure",
        "step:2/report -> data:2:metric WAS_GENERATED_BY metric",
        "data:2:figure -> step:3 USED data",
        "step:3 -> data:3:archived WAS_GENERATED_BY archived",
      ].sort(),
    );
  });

  const MICRO = `query($expand: Boolean) { microGraph(pipeline: "study", expandComposites: $expand) { columns { index step nodeKeys } nodes { key label column step } edges { from to kind derivation backward } } }`;

  test("micro graph: the composite run is one execution with its shortcut edges; expanded, the executions of its steps with their links and internal edges", async () => {
    const labelled = (graph: { columns: { index: number; nodeKeys: string[] }[]; nodes: { key: string; label: string }[] }) => {
      const label = new Map(graph.nodes.map((n) => [n.key, n.label]));
      return graph.columns.map((c) => [c.index, c.nodeKeys.map((k) => label.get(k)!).sort()]);
    };
    const one = (await t.gql(MICRO, { expand: false })).data!.microGraph;
    expect(labelled(one)).toEqual([
      [0, []],
      [1, ["source"]],
      [2, ["A0.csv", "A1.csv", "B0.csv", "B1.csv"]],
      [3, ["analysis"]],
      [4, ["A0_clean_joined_fig.png", "A0_clean_joined_fig_metric.json", "A1_clean_joined_fig.png", "A1_clean_joined_fig_metric.json"]],
      [5, ["archive"]],
      [6, ["A0_clean_joined_fig_archived.png", "A1_clean_joined_fig_archived.png"]],
    ]);
    expect(one.edges.filter((e: { kind: string }) => e.kind === "WAS_DERIVED_FROM").map((e: { derivation: string }) => e.derivation).sort()).toEqual([...Array(8).fill("CO_INPUT"), "INDEPENDENT", "INDEPENDENT"]);

    const expanded = (await t.gql(MICRO, { expand: true })).data!.microGraph;
    expect(labelled(expanded)).toEqual([
      [0, []],
      [1, ["source"]],
      [2, ["A0.csv", "A1.csv", "B0.csv", "B1.csv"]],
      [3, ["clean"]],
      [4, ["A0_clean.csv", "A1_clean.csv"]],
      [5, ["join"]],
      [6, ["A0_clean_joined.csv", "A1_clean_joined.csv"]],
      [7, ["report"]],
      [8, ["A0_clean_joined_fig.png", "A0_clean_joined_fig_metric.json", "A1_clean_joined_fig.png", "A1_clean_joined_fig_metric.json"]],
      [9, ["archive"]],
      [10, ["A0_clean_joined_fig_archived.png", "A1_clean_joined_fig_archived.png"]],
    ]);
    expect(expanded.nodes.filter((n: { column: number }) => n.column >= 3 && n.column <= 8).every((n: { step: number }) => n.step === 2)).toBe(true);
    expect(expanded.edges.filter((e: { kind: string }) => e.kind === "WAS_DERIVED_FROM").map((e: { derivation: string }) => e.derivation).sort()).toEqual([
      ...Array(4).fill("CO_INPUT"),
      ...Array(6).fill("INDEPENDENT"),
      ...Array(2).fill("OUTPUT_TO_OUTPUT"),
    ]);
  });
});

describe("expanding a composite in the macro graph (unit)", () => {
  test("a later step consuming an intermediate an EXPOSE composite lists (`<step>.<role>`) consumes the inner step's role node", () => {
    const operation = (name: string, kind: "CREATOR" | "COMPOSITE" = "CREATOR") => ({ id: `op_${name}` as never, name, version: "1", kind });
    const role = (r: string) => ({ role: r, artifactType: "csv" });
    const graph = buildMacroGraph(
      "p",
      [
        { step: 1, operation: operation("expose", "COMPOSITE"), inputRoles: [role("data")], outputRoles: [role("result"), role("first.out")] },
        { step: 2, operation: operation("audit"), inputRoles: [role("data")], outputRoles: [role("report")] },
      ],
      [{ step: 2, inputRole: "data", sourceStep: 1, sourceRole: "first.out" }],
      new Map([
        [
          1,
          {
            steps: [
              { name: "first", operation: operation("t"), inputRoles: ["data"], outputRoles: [role("out")] },
              { name: "second", operation: operation("t"), inputRoles: ["data"], outputRoles: [role("out")] },
            ],
            wires: [
              { source: { kind: "input" as const, role: "data" }, target: { kind: "step" as const, step: "first", role: "data" } },
              { source: { kind: "step" as const, step: "first", role: "out" }, target: { kind: "step" as const, step: "second", role: "data" } },
              { source: { kind: "step" as const, step: "second", role: "out" }, target: { kind: "output" as const, role: "result" } },
            ],
          },
        ],
      ]),
    );
    expect(graph.edges.map((e) => `${e.from} -> ${e.to} ${e.kind} ${e.role}${e.backward ? " backward" : ""}`).sort()).toEqual(
      [
        "input:1:data -> step:1/first USED data",
        "step:1/first -> data:1:first.out WAS_GENERATED_BY out",
        "data:1:first.out -> step:1/second USED data",
        "step:1/second -> data:1:result WAS_GENERATED_BY out",
        "data:1:first.out -> step:2 USED data backward",
        "step:2 -> data:2:report WAS_GENERATED_BY report",
      ].sort(),
    );
  });
});
