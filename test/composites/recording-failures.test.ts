import type { RecordingEvent } from "../../src/services/recording";
import { drafts, OPERATIONS, pipelineComposite, stepsOf } from "../support/composite-fixtures";
import { RECORD_COMPOSITE, recordCompositeOk, registerComposite } from "../support/composites";
import { recordOk, registerOperation, tableCounts } from "../support/recording";
import { createTestApp, errorCodes, type TestApp } from "../support/test-app";

// Issue 9: a composite run is one unit. A step that fails validation rejects the whole record, its error
// naming the step, and nothing is written; so does any run that does not fit the definition.

describe("recording a composite run: failures write nothing", () => {
  let t: TestApp;
  let inputs: Record<string, string>;
  const heard: RecordingEvent[][] = [];

  beforeAll(async () => {
    t = await createTestApp();
    for (const operation of OPERATIONS) await registerOperation(t, operation);
    await registerComposite(t, pipelineComposite("pipeline", "PERSIST"));
    await registerComposite(t, {
      ...pipelineComposite("flagged", "DISCARD"),
      flags: ["skipClean"],
      steps: [
        { name: "clean", operation: "clean", operationVersion: "1", when: { flag: "skipClean", equals: false } },
        { name: "join", operation: "join", operationVersion: "1" },
        { name: "report", operation: "report", operationVersion: "1" },
      ],
      wires: [...pipelineComposite("x", "DISCARD").wires, { from: "in.a", to: "join.left" }],
      allowUnsound: true,
    });
    const source = await recordOk(t, { operation: "source", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: drafts("in", ["A0.csv", "A1.csv", "B0.csv", "B1.csv"]) }] });
    inputs = source.outputIds;
    t.app.services.commits.onCommitted((events) => heard.push([...events]));
  });
  afterAll(() => t.close());

  const run = (steps: unknown[], extra: Record<string, unknown> = {}) => ({
    composite: "pipeline",
    compositeVersion: "1",
    inputs: [
      { role: "a", artifactIds: [inputs["A0.csv"], inputs["A1.csv"]] },
      { role: "b", artifactIds: [inputs["B0.csv"], inputs["B1.csv"]] },
    ],
    steps,
    ...extra,
  });
  const withStep = (label: string, index: number, change: (step: any) => void) => {
    const steps = stepsOf(label);
    change(steps[index]);
    return steps;
  };

  async function refused(input: Record<string, unknown>) {
    const before = await tableCounts(t);
    const events = heard.length;
    const res = await t.gql(RECORD_COMPOSITE, { input });
    expect(await tableCounts(t)).toEqual(before);
    expect(heard.length).toBe(events);
    return res;
  }

  test("a recorded run emits EXECUTION_RECORDED for the composite and then each step, after the commit", async () => {
    const events = heard.length;
    const result = await recordCompositeOk(t, run(stepsOf("ok")));
    expect(heard.length).toBe(events + 1);
    expect(heard[events].map((e) => (e.type === "EXECUTION_RECORDED" ? [e.execution.runId, e.edges.length] : null))).toEqual([
      [result.execution.runId, 8],
      [result.steps[0].runId, 2],
      [result.steps[1].runId, 4],
      [result.steps[2].runId, 4],
    ]);
  });

  test.each([
    [
      "a step output with no lineage (the last step)",
      () => run(withStep("f1", 2, (s) => s.outputs[0].artifacts.push(drafts("f1", ["zebra.png"])[0]))),
      { __typename: "LineageCompletenessError", code: "LINEAGE_COMPLETENESS", rule: "NO_LINEAGE_MAPPING", step: "report", role: "figure", output: "zebra.png" },
    ],
    [
      "a completed step without its required output (the middle step)",
      () => run(withStep("f2", 1, (s) => (s.outputs = []))),
      { __typename: "ArtifactValidationError", code: "ARTIFACT_VALIDATION", rule: "MISSING_OUTPUT_ROLE", step: "join", role: "joined" },
    ],
    [
      "an explicit mapping to a source outside the step",
      () => run(withStep("f3", 0, (s) => (s.lineage = [{ output: "A0_clean.csv", sources: [inputs["B0.csv"]] }]))),
      { __typename: "LineageIntegrityError", code: "LINEAGE_INTEGRITY", rule: "UNKNOWN_SOURCE", step: "clean", output: "A0_clean.csv" },
    ],
  ])("%s rejects the whole run, naming the step", async (_what, input, expected) => {
    const res = await refused(input());
    expect(res.errors).toBeUndefined();
    expect(res.data!.recordCompositeExecution).toMatchObject(expected);
    expect(res.data!.recordCompositeExecution.message).toMatch(new RegExp(`^step '${expected.step}': `));
  });

  test.each([
    ["an unknown step", () => run([...stepsOf("c1"), { step: "ghost", outputs: [] }]), { rule: "UNKNOWN_STEP", step: "ghost", candidates: ["clean", "join", "report"] }],
    ["a step reported twice", () => run([...stepsOf("c2"), stepsOf("c2b")[2]]), { rule: "DUPLICATE_STEP", step: "report" }],
    ["a step reported before a step that feeds it", () => run([stepsOf("c3")[0], stepsOf("c3")[2], stepsOf("c3")[1]]), { rule: "STEP_ORDER", step: "report", candidates: ["join"] }],
    ["no steps", () => run([]), { rule: "NO_STEPS" }],
    ["an undeclared flag", () => run(stepsOf("c4"), { flags: { fast: true } }), { rule: "UNKNOWN_FLAG", candidates: [] }],
    ["a flag that is not a boolean", () => ({ ...run(stepsOf("c5")), composite: "flagged", flags: { skipClean: "yes" } }), { rule: "FLAG_NOT_BOOLEAN", candidates: ["skipClean"] }],
    ["flags that are not an object", () => ({ ...run(stepsOf("c6")), composite: "flagged", flags: [true] }), { rule: "INVALID_FLAGS" }],
    [
      "a step whose condition does not hold under the run's flags",
      () => ({ ...run(stepsOf("c7")), composite: "flagged", flags: { skipClean: true } }),
      { rule: "STEP_NOT_ACTIVE", step: "clean", candidates: ["skipClean"] },
    ],
  ])("%s is a CompositeExecutionError", async (_what, input, expected) => {
    const res = await refused(input());
    expect(res.data!.recordCompositeExecution).toMatchObject({ __typename: "CompositeExecutionError", code: "COMPOSITE_EXECUTION", ...expected });
  });

  test.each([
    ["an unknown composite", "NOT_FOUND", () => ({ ...run(stepsOf("g1")), compositeVersion: "2" }), { field: "composite", id: "pipeline@2" }],
    ["an unknown input", "NOT_FOUND", () => ({ ...run(stepsOf("g2")), inputs: [{ role: "a", artifactIds: [`art_${"0".repeat(40)}`] }] }), { field: "inputs[0].artifactIds[0]" }],
    ["a malformed input id", "INVALID_ID", () => ({ ...run(stepsOf("g3")), inputs: [{ role: "a", artifactIds: ["run_x"] }] }), { field: "inputs[0].artifactIds[0]" }],
    [
      "a step output with a bad content hash",
      "INVALID_CONTENT_HASH",
      () => run(withStep("g4", 1, (s) => (s.outputs[0].artifacts[1].contentHash = "sha256:nope"))),
      { field: "steps[1].outputs[0].artifacts[1].contentHash", step: "join" },
    ],
    [
      "a step that ended before it started",
      "INVALID_ARGUMENT",
      () => run(withStep("g5", 0, (s) => Object.assign(s, { startedAt: "2026-01-02T00:00:00Z", endedAt: "2026-01-01T00:00:00Z" }))),
      { field: "steps[0].endedAt", step: "clean" },
    ],
  ])("%s is a %s error", async (_what, code, input, extensions) => {
    const res = await refused(input());
    expect(errorCodes(res)).toEqual([code]);
    expect(res.errors![0].extensions).toMatchObject(extensions);
  });

  test("a composite input of the wrong type or in an undeclared role is an ArtifactValidationError of the composite (no step)", async () => {
    await registerOperation(t, { name: "pngSource", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "png", inferLineageFrom: { inputs: [] } }] });
    const png = (await recordOk(t, { operation: "pngSource", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: drafts("png", ["A9.png"]) }] })).outputIds["A9.png"];
    const wrongType = await refused({ ...run(stepsOf("v1")), inputs: [{ role: "a", artifactIds: [png] }, { role: "b", artifactIds: [inputs["B0.csv"]] }] });
    expect(wrongType.data!.recordCompositeExecution).toMatchObject({ __typename: "ArtifactValidationError", rule: "ARTIFACT_TYPE_MISMATCH", role: "a", step: null, candidates: [png] });
    const undeclared = await refused({ ...run(stepsOf("v2")), inputs: [...run([]).inputs, { role: "extra", artifactIds: [inputs["B1.csv"]] }] });
    expect(undeclared.data!.recordCompositeExecution).toMatchObject({ __typename: "ArtifactValidationError", rule: "UNDECLARED_INPUT_ROLE", role: "extra", candidates: ["a", "b"] });
    const missing = await refused({ ...run(stepsOf("v3")), inputs: [{ role: "a", artifactIds: [inputs["A0.csv"]] }] });
    expect(missing.data!.recordCompositeExecution).toMatchObject({ __typename: "ArtifactValidationError", rule: "REQUIRED_ROLE_MISSING", role: "b" });
  });

  test("a run whose middle step FAILED is recorded as a FAILED composite run, with no shortcut for what was never made", async () => {
    const steps = stepsOf("failed");
    const result = await recordCompositeOk(t, run([steps[0], { step: "join", status: "FAILED", outputs: [] }]));
    expect(result.execution.status).toBe("FAILED");
    expect(result.steps.map((s: { compositeStep: string; status: string }) => [s.compositeStep, s.status])).toEqual([
      ["clean", "COMPLETED"],
      ["join", "FAILED"],
    ]);
    expect(result.execution.outputs).toEqual([]);
    expect(result.shortcutEdgeCount).toBe(0);
    const running = await recordCompositeOk(t, run([stepsOf("running")[0]]));
    expect(running.execution.status).toBe("RUNNING");
  });

  test("flags decide which steps run: with skipClean the join takes the raw input; without it this (unsound) wiring gives the join two lefts per right", async () => {
    const base = { ...run([]), composite: "flagged" };
    const skipping = await recordCompositeOk(t, {
      ...base,
      flags: { skipClean: true },
      steps: [
        { step: "join", outputs: [{ role: "joined", artifacts: drafts("skip", ["A0_joined.csv", "A1_joined.csv"]) }] },
        { step: "report", outputs: [{ role: "figure", artifacts: drafts("skip", ["A0_joined_fig.png", "A1_joined_fig.png"]) }, { role: "metric", artifacts: drafts("skip", ["A0_joined_fig_metric.json", "A1_joined_fig_metric.json"]) }] },
      ],
    });
    expect(skipping.execution.compositeRun.flags).toEqual([{ flag: "skipClean", value: true }]);
    expect(skipping.steps[0].inputs.map((l: { role: string; artifact: { originalName: string } }) => `${l.role}:${l.artifact.originalName}`)).toEqual(["left:A0.csv", "left:A1.csv", "right:B0.csv", "right:B1.csv"]);
    const res = await refused({ ...base, flags: {}, steps: stepsOf("noskip") });
    expect(res.data!.recordCompositeExecution).toMatchObject({
      __typename: "ArtifactValidationError",
      rule: "ZIP_LENGTH_MISMATCH",
      step: "join",
      role: "right",
      message: "step 'join': groupBy ZIP pairs the i-th artifact of every input role, but 'left' has 4, 'right' has 2",
    });
  });

  test("the composite's specId covers every flag's value: the same flags are the same request, other flags another", async () => {
    await registerComposite(t, { ...pipelineComposite("verbose", "DISCARD"), flags: ["verbose"] });
    const specOf = async (label: string, flags: unknown) => (await recordCompositeOk(t, { ...run(stepsOf(label)), composite: "verbose", flags })).execution.specId;
    const quiet = await specOf("q1", {});
    expect(await specOf("q2", { verbose: false })).toBe(quiet);
    expect(await specOf("q3", { verbose: true })).not.toBe(quiet);
  });
});
