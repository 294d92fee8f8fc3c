import { drafts, OPERATIONS, pipelineComposite, stepsOf } from "../support/composite-fixtures";
import { recordCompositeOk, registerComposite } from "../support/composites";
import { recordOk, registerOperation } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

// The pipeline graphs checked against the rules of "Visualization" and "Composite provenance and step
// boundaries" (docs: "Lineage and graphs"): a replay's first frame shows what the first step reads; a
// DISCARD composite expanded still shows how its outputs derive (its shortcut edges: nothing else was
// kept); an EXPOSE composite's role for an intermediate that is also a final output is that output.
//
// Pipelines "discarded" and "exposed": step 1 source (A0, A1, B0, B1) → step 2 the acceptance composite
// (DISCARD, resp. EXPOSE) → step 3 archive (the figures).

describe("pipeline graph views of composites and replays", () => {
  let t: TestApp;
  const byName: Record<string, Record<string, string>> = { discarded: {}, exposed: {} };

  beforeAll(async () => {
    t = await createTestApp();
    for (const operation of OPERATIONS) await registerOperation(t, operation);
    await registerOperation(t, { name: "archive", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "png" }], outputs: [{ role: "archived", artifactType: "png", inferLineageFrom: { inputs: ["data"] } }] });
    for (const [pipeline, mode] of [["discarded", "DISCARD"], ["exposed", "EXPOSE"]] as const) {
      await registerComposite(t, pipelineComposite(`analysis_${pipeline}`, mode));
      const source = await recordOk(t, { operation: "source", operationVersion: "1", pipeline, step: 1, inputs: [], outputs: [{ role: "raw", artifacts: drafts(pipeline, ["A0.csv", "A1.csv", "B0.csv", "B1.csv"]) }] });
      Object.assign(byName[pipeline], source.outputIds);
      const composite = await recordCompositeOk(t, {
        composite: `analysis_${pipeline}`,
        compositeVersion: "1",
        pipeline,
        step: 2,
        inputs: [
          { role: "a", artifactIds: [byName[pipeline]["A0.csv"], byName[pipeline]["A1.csv"]] },
          { role: "b", artifactIds: [byName[pipeline]["B0.csv"], byName[pipeline]["B1.csv"]] },
        ],
        steps: stepsOf(pipeline),
      });
      for (const link of composite.execution.outputs) byName[pipeline][link.artifact.originalName] = link.artifact.id;
      const figures = composite.execution.outputs.filter((l: { role: string }) => l.role === "figure").map((l: { artifact: { id: string } }) => l.artifact.id);
      await recordOk(t, { operation: "archive", operationVersion: "1", pipeline, step: 3, inputs: [{ role: "data", artifactIds: figures }], outputs: [{ role: "archived", artifacts: drafts(pipeline, ["A0_clean_joined_fig_archived.png", "A1_clean_joined_fig_archived.png"]) }] });
    }
  });
  afterAll(() => t.close());

  test("microGraph(upToStep: 0) of a pipeline whose first step is 1: the first frame shows the first step's inputs in column 0, nothing else", async () => {
    // Pipeline "replay": its first step (1) cleans two of the sources.
    await recordOk(t, { operation: "clean", operationVersion: "1", pipeline: "replay", step: 1, inputs: [{ role: "data", artifactIds: [byName.discarded["A0.csv"], byName.discarded["B0.csv"]] }], outputs: [{ role: "cleaned", artifacts: drafts("replay", ["A0_clean.csv", "B0_clean.csv"]) }] });
    const res = await t.gql(`{ microGraph(pipeline: "replay", upToStep: 0) { steps upToStep columns { index kind step nodeKeys } nodes { label column step ... on MicroArtifactNode { pipelineInput } } edges { from } } }`);
    expect(res.errors).toBeUndefined();
    const graph = res.data!.microGraph;
    graph.columns[0].nodeKeys.sort();
    expect(graph).toEqual({
      steps: [],
      upToStep: 0,
      columns: [{ index: 0, kind: "DATA", step: null, nodeKeys: [byName.discarded["A0.csv"], byName.discarded["B0.csv"]].sort() }],
      nodes: expect.arrayContaining([
        { label: "A0.csv", column: 0, step: null, pipelineInput: true },
        { label: "B0.csv", column: 0, step: null, pipelineInput: true },
      ]),
      edges: [],
    });
    expect(graph.nodes).toHaveLength(2);
  });

  test("expandComposites on a DISCARD composite: its outputs keep the derivation edges the composite recorded (its shortcuts)", async () => {
    const res = await t.gql(`{ microGraph(pipeline: "discarded", expandComposites: true) { nodes { key label } edges { from to kind derivation step } } }`);
    expect(res.errors).toBeUndefined();
    const label = new Map<string, string>(res.data!.microGraph.nodes.map((n: { key: string; label: string }) => [n.key, n.label]));
    const derived = res.data!.microGraph.edges
      .filter((e: { kind: string }) => e.kind === "WAS_DERIVED_FROM")
      .map((e: { from: string; to: string; derivation: string; step: number }) => `${label.get(e.from)} -> ${label.get(e.to)} ${e.derivation} step=${e.step}`)
      .sort();
    expect(derived).toEqual(
      [
        "A0.csv -> A0_clean_joined_fig.png CO_INPUT step=2",
        "B0.csv -> A0_clean_joined_fig.png CO_INPUT step=2",
        "A0.csv -> A0_clean_joined_fig_metric.json CO_INPUT step=2",
        "B0.csv -> A0_clean_joined_fig_metric.json CO_INPUT step=2",
        "A1.csv -> A1_clean_joined_fig.png CO_INPUT step=2",
        "B1.csv -> A1_clean_joined_fig.png CO_INPUT step=2",
        "A1.csv -> A1_clean_joined_fig_metric.json CO_INPUT step=2",
        "B1.csv -> A1_clean_joined_fig_metric.json CO_INPUT step=2",
        "A0_clean_joined_fig.png -> A0_clean_joined_fig_archived.png INDEPENDENT step=3",
        "A1_clean_joined_fig.png -> A1_clean_joined_fig_archived.png INDEPENDENT step=3",
      ].sort(),
    );
  });

  test("macroGraph of an EXPOSE composite: an intermediate wired to a final output is drawn once, as that output", async () => {
    for (const expand of [false, true]) {
      const res = await t.gql(`query($e: Boolean) { macroGraph(pipeline: "exposed", expandComposites: $e) { nodes { key } edges { from to kind role } } }`, { e: expand });
      expect(res.errors).toBeUndefined();
      const keys = res.data!.macroGraph.nodes.map((n: { key: string }) => n.key);
      // The composite exposes clean.cleaned and join.joined as roles of their own; report.figure and
      // report.metric are the final outputs figure and metric.
      expect(keys).toEqual(expect.arrayContaining(["data:2:figure", "data:2:metric", "data:2:clean.cleaned", "data:2:join.joined"]));
      expect(keys).not.toContain("data:2:report.figure");
      expect(keys).not.toContain("data:2:report.metric");
      expect(res.data!.macroGraph.edges.filter((e: { to: string }) => e.to === "step:3")).toEqual([{ from: "data:2:figure", to: "step:3", kind: "USED", role: "data" }]);
    }
  });
});
