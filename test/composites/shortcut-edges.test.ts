import { artifactIdFor } from "../../src/services/ids";
import { groupIdFor } from "../../src/services/recording";
import { recordCompositeOk, registerComposite } from "../support/composites";
import { edgesByName, recordOk, registerOperation, sha256Of } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

// Acceptance, issue 9: where the seed framework's composites lose information in their shortcuts,
// provgraph must not. One test per case; each composite is recorded with DISCARD unless the case
// needs internal edges beside the shortcuts, so what is left is exactly what the shortcuts say.

const csvIn = (role: string) => ({ role, artifactType: "csv" });
const creator = (name: string, inputs: string[], outputs: { role: string; type?: string; from?: string[]; fromOutputs?: string[] }[], extra: Record<string, unknown> = {}) => ({
  name,
  version: "1",
  kind: "CREATOR",
  inputs: inputs.map(csvIn),
  outputs: outputs.map((o) => ({ role: o.role, artifactType: o.type ?? "csv", inferLineageFrom: o.fromOutputs ? { outputs: o.fromOutputs } : { inputs: o.from ?? inputs.slice(0, 1) } })),
  ...extra,
});
const drafts = (label: string, names: string[]) => names.map((originalName) => ({ originalName, contentHash: sha256Of(`${label}/${originalName}`) }));
const idOf = (label: string, type: string, name: string) => artifactIdFor(type, sha256Of(`${label}/${name}`));

describe("shortcut edges keep what the steps' lineage says", () => {
  let t: TestApp;
  const inputs: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, { name: "source", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    await registerOperation(t, creator("join", ["left", "right"], [{ role: "joined" }], { groupBy: "ZIP" }));
    await registerOperation(t, creator("plot", ["data"], [{ role: "figure", type: "png" }]));
    await registerOperation(t, creator("prep", ["data"], [{ role: "prepped" }]));
    await registerOperation(t, creator("combine", ["main", "side"], [{ role: "mainOut", from: ["main"] }, { role: "sideOut", from: ["side"] }]));
    await registerOperation(t, creator("fold", ["sequence"], [{ role: "structure", type: "pdb" }, { role: "metric", type: "json", fromOutputs: ["structure"] }]));
    await registerOperation(t, creator("transform", ["data"], [{ role: "result" }]));
    await registerOperation(t, creator("merge", ["x", "y"], [{ role: "merged" }], { groupBy: "ZIP" }));
    await registerOperation(t, creator("either", ["x", "y"], [{ role: "picked" }]));
    const source = await recordOk(t, { operation: "source", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: drafts("in", ["A0.csv", "B0.csv", "L0.csv", "S0.csv", "cfg.csv"]) }] });
    Object.assign(inputs, source.outputIds);
  });
  afterAll(() => t.close());

  /** The edges of one recorded composite run, by artifact name, with the run named. */
  async function edgesOf(result: { execution: { runId: string }; steps: { runId: string; compositeStep: string }[] }) {
    const runs: Record<string, string> = { [result.execution.runId]: "composite" };
    for (const step of result.steps) runs[step.runId] = step.compositeStep;
    return (await edgesByName(t))
      .filter((e) => runs[e.runId])
      .map((e) => ({ run: runs[e.runId], source: e.source, target: e.target, kind: e.kind, groupId: e.groupId, stepBoundary: e.stepBoundary, types: `${e.sourceType}→${e.targetType}` }))
      .sort((a, b) => (a.run + a.target + a.source < b.run + b.target + b.source ? -1 : 1));
  }
  const register = async (definition: Record<string, unknown>) => expect((await registerComposite(t, { version: "1", ...definition })).__typename).toBe("CompositeDefinition");

  test("a shortcut through a co-input join keeps the joint derivation: A0, B0 → O0 → F0 gives F0 ← {A0, B0} as one CO_INPUT group", async () => {
    await register({
      name: "join_then_plot",
      inputs: [csvIn("a"), csvIn("b")],
      outputs: [{ role: "figure", artifactType: "png" }],
      steps: [
        { name: "join", operation: "join", operationVersion: "1" },
        { name: "plot", operation: "plot", operationVersion: "1" },
      ],
      wires: [
        { from: "in.a", to: "join.left" },
        { from: "in.b", to: "join.right" },
        { from: "join.joined", to: "plot.data" },
        { from: "plot.figure", to: "out.figure" },
      ],
      intermediates: "DISCARD",
    });
    const result = await recordCompositeOk(t, {
      composite: "join_then_plot",
      compositeVersion: "1",
      inputs: [
        { role: "a", artifactIds: [inputs["A0.csv"]] },
        { role: "b", artifactIds: [inputs["B0.csv"]] },
      ],
      steps: [
        { step: "join", outputs: [{ role: "joined", artifacts: drafts("j", ["A0_O.csv"]) }] },
        { step: "plot", outputs: [{ role: "figure", artifacts: drafts("j", ["A0_O_F.png"]) }] },
      ],
    });
    const group = groupIdFor([inputs["A0.csv"], inputs["B0.csv"]]);
    expect(await edgesOf(result)).toEqual([
      { run: "composite", source: "A0.csv", target: "A0_O_F.png", kind: "CO_INPUT", groupId: group, stepBoundary: true, types: "csv→png" },
      { run: "composite", source: "B0.csv", target: "A0_O_F.png", kind: "CO_INPUT", groupId: group, stepBoundary: true, types: "csv→png" },
    ]);
  });

  test("a composite input first consumed by a later step still gets its shortcut", async () => {
    await register({
      name: "late_input",
      inputs: [csvIn("a"), csvIn("late")],
      outputs: [csvIn("main"), csvIn("side")],
      steps: [
        { name: "prep", operation: "prep", operationVersion: "1" },
        { name: "combine", operation: "combine", operationVersion: "1" },
      ],
      wires: [
        { from: "in.a", to: "prep.data" },
        { from: "prep.prepped", to: "combine.main" },
        { from: "in.late", to: "combine.side" },
        { from: "combine.mainOut", to: "out.main" },
        { from: "combine.sideOut", to: "out.side" },
      ],
      intermediates: "DISCARD",
    });
    const result = await recordCompositeOk(t, {
      composite: "late_input",
      compositeVersion: "1",
      inputs: [
        { role: "a", artifactIds: [inputs["A0.csv"]] },
        { role: "late", artifactIds: [inputs["L0.csv"]] },
      ],
      steps: [
        { step: "prep", outputs: [{ role: "prepped", artifacts: drafts("l", ["A0_p.csv"]) }] },
        { step: "combine", outputs: [{ role: "mainOut", artifacts: drafts("l", ["A0_p_main.csv"]) }, { role: "sideOut", artifacts: drafts("l", ["L0_side.csv"]) }] },
      ],
    });
    expect(await edgesOf(result)).toEqual([
      { run: "composite", source: "A0.csv", target: "A0_p_main.csv", kind: "INDEPENDENT", groupId: groupIdFor([inputs["A0.csv"]]), stepBoundary: true, types: "csv→csv" },
      { run: "composite", source: "L0.csv", target: "L0_side.csv", kind: "INDEPENDENT", groupId: groupIdFor([inputs["L0.csv"]]), stepBoundary: true, types: "csv→csv" },
    ]);
  });

  test("output-to-output edges inside a composite give correct shortcuts: the metric derives from the composite input through the structure", async () => {
    const definition = (name: string, outputs: string[], intermediates: string) => ({
      name,
      inputs: [csvIn("sequence")],
      outputs: outputs.map((role) => ({ role, artifactType: role === "metric" ? "json" : "pdb" })),
      steps: [{ name: "fold", operation: "fold", operationVersion: "1" }],
      wires: [{ from: "in.sequence", to: "fold.sequence" }, ...outputs.map((role) => ({ from: `fold.${role}`, to: `out.${role}` }))],
      intermediates,
    });
    const run = (name: string, label: string) =>
      recordCompositeOk(t, {
        composite: name,
        compositeVersion: "1",
        inputs: [{ role: "sequence", artifactIds: [inputs["S0.csv"]] }],
        steps: [{ step: "fold", outputs: [{ role: "structure", artifacts: drafts(label, ["S0.pdb"]) }, { role: "metric", artifacts: drafts(label, ["S0_plddt.json"]) }] }],
      });
    const sequence = groupIdFor([inputs["S0.csv"]]);

    // Only the metric is an output: the structure is a discarded intermediate, and the metric still derives from the sequence.
    await register(definition("fold_metric", ["metric"], "DISCARD"));
    expect(await edgesOf(await run("fold_metric", "m"))).toEqual([{ run: "composite", source: "S0.csv", target: "S0_plddt.json", kind: "INDEPENDENT", groupId: sequence, stepBoundary: true, types: "csv→json" }]);

    // Both are outputs, intermediates persisted: the internal output-to-output edge beside two shortcuts from the sequence.
    await register(definition("fold_both", ["structure", "metric"], "PERSIST"));
    expect(await edgesOf(await run("fold_both", "b"))).toEqual([
      { run: "composite", source: "S0.csv", target: "S0.pdb", kind: "INDEPENDENT", groupId: sequence, stepBoundary: true, types: "csv→pdb" },
      { run: "composite", source: "S0.csv", target: "S0_plddt.json", kind: "INDEPENDENT", groupId: sequence, stepBoundary: true, types: "csv→json" },
      { run: "fold", source: "S0.csv", target: "S0.pdb", kind: "INDEPENDENT", groupId: sequence, stepBoundary: false, types: "csv→pdb" },
      { run: "fold", source: "S0.pdb", target: "S0_plddt.json", kind: "OUTPUT_TO_OUTPUT", groupId: groupIdFor([idOf("b", "pdb", "S0.pdb")]), stepBoundary: false, types: "pdb→json" },
    ]);
  });

  test.each(["DISCARD", "PERSIST", "EXPOSE"])("no duplicate (source, target, run) edge in a one-step composite (%s)", async (mode) => {
    await register({
      name: `one_step_${mode}`,
      inputs: [csvIn("data")],
      outputs: [csvIn("result")],
      steps: [{ name: "transform", operation: "transform", operationVersion: "1" }],
      wires: [
        { from: "in.data", to: "transform.data" },
        { from: "transform.result", to: "out.result" },
      ],
      intermediates: mode,
    });
    const result = await recordCompositeOk(t, {
      composite: `one_step_${mode}`,
      compositeVersion: "1",
      inputs: [{ role: "data", artifactIds: [inputs["A0.csv"]] }],
      steps: [{ step: "transform", outputs: [{ role: "result", artifacts: drafts(`one_${mode}`, ["A0_t.csv"]) }] }],
    });
    const edges = await edgesOf(result);
    const shortcut = { run: "composite", source: "A0.csv", target: "A0_t.csv", kind: "INDEPENDENT", groupId: groupIdFor([inputs["A0.csv"]]), stepBoundary: true, types: "csv→csv" };
    expect(edges).toEqual(mode === "DISCARD" ? [shortcut] : [shortcut, { ...shortcut, run: "transform", stepBoundary: false }]);
    expect(new Set(edges.map((e) => `${e.source}|${e.target}|${e.run}`)).size).toBe(edges.length);
  });

  test("two paths from one input to a joint derivation give one INDEPENDENT shortcut, not a group of the input with itself", async () => {
    await register({
      name: "diamond",
      inputs: [csvIn("a")],
      outputs: [csvIn("merged")],
      steps: [
        { name: "left", operation: "prep", operationVersion: "1" },
        { name: "right", operation: "transform", operationVersion: "1" },
        { name: "merge", operation: "merge", operationVersion: "1" },
      ],
      wires: [
        { from: "in.a", to: "left.data" },
        { from: "in.a", to: "right.data" },
        { from: "left.prepped", to: "merge.x" },
        { from: "right.result", to: "merge.y" },
        { from: "merge.merged", to: "out.merged" },
      ],
      intermediates: "PERSIST",
    });
    const result = await recordCompositeOk(t, {
      composite: "diamond",
      compositeVersion: "1",
      inputs: [{ role: "a", artifactIds: [inputs["A0.csv"]] }],
      steps: [
        { step: "left", outputs: [{ role: "prepped", artifacts: drafts("d", ["A0_l.csv"]) }] },
        { step: "right", outputs: [{ role: "result", artifacts: drafts("d", ["A0_r.csv"]) }] },
        { step: "merge", outputs: [{ role: "merged", artifacts: drafts("d", ["A0_l_m.csv"]) }] },
      ],
    });
    const edges = await edgesOf(result);
    expect(edges.filter((e) => e.run === "composite")).toEqual([
      { run: "composite", source: "A0.csv", target: "A0_l_m.csv", kind: "INDEPENDENT", groupId: groupIdFor([inputs["A0.csv"]]), stepBoundary: true, types: "csv→csv" },
    ]);
    expect(edges.filter((e) => e.run === "merge").map((e) => [e.source, e.kind])).toEqual([
      ["A0_l.csv", "CO_INPUT"],
      ["A0_r.csv", "CO_INPUT"],
    ]);
  });

  test("independent alternatives stay alternatives; a config reference into an output is carried over", async () => {
    await register({
      name: "alternatives",
      inputs: [csvIn("a"), csvIn("b")],
      outputs: [csvIn("picked")],
      steps: [
        { name: "pa", operation: "prep", operationVersion: "1" },
        { name: "pb", operation: "prep", operationVersion: "1" },
        { name: "pick", operation: "either", operationVersion: "1" },
      ],
      wires: [
        { from: "in.a", to: "pa.data" },
        { from: "in.b", to: "pb.data" },
        { from: "pa.prepped", to: "pick.x" },
        { from: "pb.prepped", to: "pick.y" },
        { from: "pick.picked", to: "out.picked" },
      ],
      intermediates: "DISCARD",
    });
    const picked = { ...drafts("alt", ["P.csv"])[0], metadata: { config: { $artifact: inputs["cfg.csv"] } } };
    const result = await recordCompositeOk(t, {
      composite: "alternatives",
      compositeVersion: "1",
      inputs: [
        { role: "a", artifactIds: [inputs["A0.csv"]] },
        { role: "b", artifactIds: [inputs["B0.csv"]] },
      ],
      steps: [
        { step: "pa", outputs: [{ role: "prepped", artifacts: drafts("alt", ["A0_p.csv"]) }] },
        { step: "pb", outputs: [{ role: "prepped", artifacts: drafts("alt", ["B0_p.csv"]) }] },
        { step: "pick", outputs: [{ role: "picked", artifacts: [picked] }], lineage: [{ output: "P.csv", sources: [idOf("alt", "csv", "A0_p.csv"), idOf("alt", "csv", "B0_p.csv")], kind: "INDEPENDENT" }] },
      ],
    });
    expect(await edgesOf(result)).toEqual([
      { run: "composite", source: "A0.csv", target: "P.csv", kind: "INDEPENDENT", groupId: groupIdFor([inputs["A0.csv"]]), stepBoundary: true, types: "csv→csv" },
      { run: "composite", source: "B0.csv", target: "P.csv", kind: "INDEPENDENT", groupId: groupIdFor([inputs["B0.csv"]]), stepBoundary: true, types: "csv→csv" },
      { run: "composite", source: "cfg.csv", target: "P.csv", kind: "CONFIG_REFERENCE", groupId: groupIdFor([inputs["cfg.csv"]]), stepBoundary: true, types: "csv→csv" },
    ]);
  });
});
