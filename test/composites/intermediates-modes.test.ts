import { groupIdFor } from "../../src/services/recording";
import { drafts, idOf, OPERATIONS, pipelineComposite, stepsOf } from "../support/composite-fixtures";
import { recordCompositeOk, registerComposite } from "../support/composites";
import { edgesByName, recordOk, registerOperation, tableCounts } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

/** A composite run writes nothing of OpenLineage's; its four executions (the composite and three steps) are four feed events. */
const NO_OPENLINEAGE_ROWS = { openLineageEvents: 0, openLineageRuns: 0, datasetVersionUses: 0, columnEdges: 0, datasetColumns: 0 };

// Acceptance, issue 9: a 3-step composite with a ZIP co-input join in the middle, recorded once in each
// intermediates mode — exact edge sets (internal vs shortcut, stepBoundary, groupIds, runIds) and
// exactly what is persisted. Two pairs: A0/B0 and A1/B1.
//
//   in.a → clean → join.left ┐
//   in.b ───────── join.right ┴ join → report → out.figure, out.metric (metric derives from figure: output-to-output)

describe("a composite run in each intermediates mode (3 steps, ZIP join in the middle)", () => {
  let t: TestApp;
  let inputs: Record<string, string>;

  beforeAll(async () => {
    t = await createTestApp();
    for (const operation of OPERATIONS) await registerOperation(t, operation);
    for (const mode of ["DISCARD", "PERSIST", "EXPOSE"]) {
      const registered = await registerComposite(t, pipelineComposite(`pipeline_${mode.toLowerCase()}`, mode));
      expect(registered).toMatchObject({ __typename: "CompositeDefinition", intermediates: mode, sound: true, operation: { kind: "COMPOSITE" } });
    }
    const source = await recordOk(t, { operation: "source", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: drafts("inputs", ["A0.csv", "A1.csv", "B0.csv", "B1.csv"]) }] });
    inputs = source.outputIds;
  });
  afterAll(() => t.close());

  async function run(mode: string) {
    const before = await tableCounts(t);
    const edgesBefore = (await edgesByName(t)).length;
    const result = await recordCompositeOk(t, {
      composite: `pipeline_${mode.toLowerCase()}`,
      compositeVersion: "1",
      inputs: [
        { role: "a", artifactIds: [inputs["A0.csv"], inputs["A1.csv"]] },
        { role: "b", artifactIds: [inputs["B0.csv"], inputs["B1.csv"]] },
      ],
      steps: stepsOf(mode),
    });
    const after = await tableCounts(t);
    const delta = Object.fromEntries(Object.entries(after).map(([table, n]) => [table, n - before[table as keyof typeof before]]));
    const runs: Record<string, string> = { [result.execution.runId]: "composite" };
    for (const step of result.steps) runs[step.runId] = step.compositeStep;
    const edges = (await edgesByName(t))
      .filter((e) => runs[e.runId])
      .map((e) => ({ ...e, runId: runs[e.runId] }))
      .sort((a, b) => (a.runId + a.target + a.source < b.runId + b.target + b.source ? -1 : 1));
    expect(edges.length).toBe((await edgesByName(t)).length - edgesBefore);
    return { result, delta, edges };
  }

  // The edges of pair i, by kind of edge: internal (a step's run, not step-boundary) and shortcut (the composite's run, step-boundary).
  const pair = (mode: string, i: number) => {
    const a = inputs[`A${i}.csv`];
    const b = inputs[`B${i}.csv`];
    const cleaned = idOf(mode, "csv", `A${i}_clean.csv`);
    const joined = idOf(mode, "csv", `A${i}_clean_joined.csv`);
    const edge = (runId: string, source: string, target: string, kind: string, groupId: string, sourceType: string, targetType: string) => ({
      runId,
      source,
      target,
      kind,
      groupId,
      stepBoundary: runId === "composite",
      sourceType,
      targetType,
    });
    const figure = `A${i}_clean_joined_fig.png`;
    const metric = `A${i}_clean_joined_fig_metric.json`;
    const internal = [
      edge("clean", `A${i}.csv`, `A${i}_clean.csv`, "INDEPENDENT", groupIdFor([a]), "csv", "csv"),
      edge("join", `A${i}_clean.csv`, `A${i}_clean_joined.csv`, "CO_INPUT", groupIdFor([cleaned, b]), "csv", "csv"),
      edge("join", `B${i}.csv`, `A${i}_clean_joined.csv`, "CO_INPUT", groupIdFor([cleaned, b]), "csv", "csv"),
      edge("report", `A${i}_clean_joined.csv`, figure, "INDEPENDENT", groupIdFor([joined]), "csv", "png"),
      edge("report", figure, metric, "OUTPUT_TO_OUTPUT", groupIdFor([idOf(mode, "png", figure)]), "png", "json"),
    ];
    // The join stays joint through the shortcut: F ← {A, B} is one CO_INPUT group, and so is the metric.
    const shortcuts = [
      edge("composite", `A${i}.csv`, figure, "CO_INPUT", groupIdFor([a, b]), "csv", "png"),
      edge("composite", `B${i}.csv`, figure, "CO_INPUT", groupIdFor([a, b]), "csv", "png"),
      edge("composite", `A${i}.csv`, metric, "CO_INPUT", groupIdFor([a, b]), "csv", "json"),
      edge("composite", `B${i}.csv`, metric, "CO_INPUT", groupIdFor([a, b]), "csv", "json"),
    ];
    const exposed = [
      edge("composite", `A${i}.csv`, `A${i}_clean.csv`, "INDEPENDENT", groupIdFor([a]), "csv", "csv"),
      edge("composite", `A${i}.csv`, `A${i}_clean_joined.csv`, "CO_INPUT", groupIdFor([a, b]), "csv", "csv"),
      edge("composite", `B${i}.csv`, `A${i}_clean_joined.csv`, "CO_INPUT", groupIdFor([a, b]), "csv", "csv"),
    ];
    return { internal, shortcuts, exposed };
  };
  const sorted = (edges: { runId: string; target: string; source: string }[]) => [...edges].sort((a, b) => (a.runId + a.target + a.source < b.runId + b.target + b.source ? -1 : 1));
  const noDuplicates = (edges: { source: string; target: string; runId: string }[]) => expect(new Set(edges.map((e) => `${e.source}|${e.target}|${e.runId}`)).size).toBe(edges.length);

  test("DISCARD: only shortcut edges, the composite's inputs and outputs; the step executions kept, linked to those alone", async () => {
    const { result, delta, edges } = await run("DISCARD");
    expect(edges).toEqual(sorted([...pair("DISCARD", 0).shortcuts, ...pair("DISCARD", 1).shortcuts]));
    noDuplicates(edges);
    expect(delta).toEqual({ operations: 0, operationRoles: 0, executions: 4, artifacts: 4, links: 16, edges: 8, steps: 0, flows: 0, compositeDefinitions: 0, compositeRuns: 1, compositeStepRuns: 3, feedEvents: 4, ...NO_OPENLINEAGE_ROWS });
    expect(result.shortcutEdgeCount).toBe(8);
    expect(result.edgeCount).toBe(8);
    expect(result.execution.status).toBe("COMPLETED");
    expect(result.execution.compositeRun).toEqual({ intermediates: "DISCARD", flags: [], composite: { name: "pipeline_discard" } });
    expect(result.execution.children).toEqual(result.steps.map((s: { runId: string; compositeStep: string }) => ({ runId: s.runId, compositeStep: s.compositeStep })));
    expect(result.steps.map((s: { compositeStep: string; parent: { runId: string } }) => [s.compositeStep, s.parent.runId])).toEqual([
      ["clean", result.execution.runId],
      ["join", result.execution.runId],
      ["report", result.execution.runId],
    ]);
    const links = (s: { inputs: { role: string; artifact: { originalName: string } }[]; outputs: { role: string; artifact: { originalName: string } }[] }) => [
      s.inputs.map((l) => `${l.role}:${l.artifact.originalName}`),
      s.outputs.map((l) => `${l.role}:${l.artifact.originalName}`),
    ];
    expect(result.steps.map(links)).toEqual([
      [["data:A0.csv", "data:A1.csv"], []],
      [["right:B0.csv", "right:B1.csv"], []],
      [[], ["figure:A0_clean_joined_fig.png", "figure:A1_clean_joined_fig.png", "metric:A0_clean_joined_fig_metric.json", "metric:A1_clean_joined_fig_metric.json"]],
    ]);
    expect(links(result.execution)).toEqual([
      ["a:A0.csv", "a:A1.csv", "b:B0.csv", "b:B1.csv"],
      ["figure:A0_clean_joined_fig.png", "figure:A1_clean_joined_fig.png", "metric:A0_clean_joined_fig_metric.json", "metric:A1_clean_joined_fig_metric.json"],
    ]);
    const stored = await t.app.database.prisma.artifact.count({ where: { id: { in: [idOf("DISCARD", "csv", "A0_clean.csv"), idOf("DISCARD", "csv", "A0_clean_joined.csv")] } } });
    expect(stored).toBe(0);
  });

  test("PERSIST: intermediates and internal edges (not step-boundary, the step's run) beside the shortcuts", async () => {
    const { delta, edges, result } = await run("PERSIST");
    const [p0, p1] = [pair("PERSIST", 0), pair("PERSIST", 1)];
    expect(edges).toEqual(sorted([...p0.internal, ...p1.internal, ...p0.shortcuts, ...p1.shortcuts]));
    noDuplicates(edges);
    expect(delta).toEqual({ operations: 0, operationRoles: 0, executions: 4, artifacts: 8, links: 24, edges: 18, steps: 0, flows: 0, compositeDefinitions: 0, compositeRuns: 1, compositeStepRuns: 3, feedEvents: 4, ...NO_OPENLINEAGE_ROWS });
    expect(result.edgeCount).toBe(18);
    expect(result.execution.outputs.map((l: { role: string }) => l.role)).toEqual(["figure", "figure", "metric", "metric"]);
  });

  test("EXPOSE: as PERSIST, and the intermediates are outputs of the composite execution with step-boundary shortcuts", async () => {
    const { delta, edges, result } = await run("EXPOSE");
    const [p0, p1] = [pair("EXPOSE", 0), pair("EXPOSE", 1)];
    expect(edges).toEqual(sorted([...p0.internal, ...p1.internal, ...p0.shortcuts, ...p1.shortcuts, ...p0.exposed, ...p1.exposed]));
    noDuplicates(edges);
    expect(delta).toEqual({ operations: 0, operationRoles: 0, executions: 4, artifacts: 8, links: 28, edges: 24, steps: 0, flows: 0, compositeDefinitions: 0, compositeRuns: 1, compositeStepRuns: 3, feedEvents: 4, ...NO_OPENLINEAGE_ROWS });
    expect(result.execution.outputs.map((l: { role: string; artifact: { originalName: string } }) => `${l.role}:${l.artifact.originalName}`)).toEqual([
      "clean.cleaned:A0_clean.csv",
      "clean.cleaned:A1_clean.csv",
      "figure:A0_clean_joined_fig.png",
      "figure:A1_clean_joined_fig.png",
      "join.joined:A0_clean_joined.csv",
      "join.joined:A1_clean_joined.csv",
      "metric:A0_clean_joined_fig_metric.json",
      "metric:A1_clean_joined_fig_metric.json",
    ]);
  });
});
