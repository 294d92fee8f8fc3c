import { createTestApp, errorCodes, type TestApp } from "../support/test-app";
import { registerComposite } from "../support/composites";
import { draft, recordExecution, registerOperation, tableCounts } from "../support/recording";

// Issue 9, item 1: registration, validated. Each refusal is a CompositeDeclarationError naming the rule
// and the culprit, and writes nothing.

const creator = (name: string, inputs: [string, string][], outputs: [string, string][]) => ({
  name,
  version: "1",
  kind: "CREATOR",
  inputs: inputs.map(([role, artifactType]) => ({ role, artifactType })),
  outputs: outputs.map(([role, artifactType]) => ({ role, artifactType, inferLineageFrom: { inputs: [inputs[0][0]] } })),
});

/** in.data → clean → score → out.score, with a flag for a conditional alternative. */
const base = () => ({
  name: "scoring",
  version: "1",
  inputs: [{ role: "data", artifactType: "csv" }],
  outputs: [{ role: "score", artifactType: "json" }],
  steps: [
    { name: "clean", operation: "clean", operationVersion: "1" },
    { name: "score", operation: "score", operationVersion: "1" },
  ],
  wires: [
    { from: "in.data", to: "clean.data" },
    { from: "clean.cleaned", to: "score.data" },
    { from: "score.score", to: "out.score" },
  ] as { from: string; to: string }[],
  flags: [] as string[],
  intermediates: "PERSIST",
});
type Definition = ReturnType<typeof base>;

describe("registerComposite", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, creator("clean", [["data", "csv"]], [["cleaned", "csv"]]));
    await registerOperation(t, creator("score", [["data", "csv"]], [["score", "json"]]));
    await registerOperation(t, creator("fastScore", [["data", "csv"]], [["score", "json"]]));
    await registerOperation(t, { ...creator("enrich", [["data", "csv"], ["extra", "csv"]], [["enriched", "csv"]]) });
  });
  afterAll(() => t.close());

  test("a valid definition is registered with its wiring as given; the same definition again is a no-op", async () => {
    const registered = await registerComposite(t, base());
    expect(registered).toEqual({
      __typename: "CompositeDefinition",
      name: "scoring",
      version: "1",
      intermediates: "PERSIST",
      flags: [],
      sound: true,
      operation: { id: expect.stringMatching(/^op_/), kind: "COMPOSITE" },
      steps: [
        { name: "clean", operation: { name: "clean", version: "1" }, when: null },
        { name: "score", operation: { name: "score", version: "1" }, when: null },
      ],
      wires: base().wires,
    });
    const before = await tableCounts(t);
    expect(await registerComposite(t, base())).toEqual(registered);
    expect(await tableCounts(t)).toEqual(before);
    const read = await t.gql(`{ compositeDefinition(name: "scoring", version: "1") { name inputs { role artifactType required } outputs { role artifactType } wires { from to } operation { kind inputs { role } outputs { role } composite { name } } } }`);
    expect(read.data!.compositeDefinition).toEqual({
      name: "scoring",
      inputs: [{ role: "data", artifactType: "csv", required: true }],
      outputs: [{ role: "score", artifactType: "json" }],
      wires: base().wires,
      operation: { kind: "COMPOSITE", inputs: [{ role: "data" }], outputs: [{ role: "score" }], composite: { name: "scoring" } },
    });
    const missing = await t.gql(`{ compositeDefinition(name: "scoring", version: "2") { name } }`);
    expect(missing.errors?.map((e) => [e.extensions?.code, e.extensions?.field])).toEqual([["NOT_FOUND", "name"]]);
  });

  test("two alternative (conditional) steps may feed the same role, and the definition is sound", async () => {
    const alternatives = base();
    alternatives.name = "scoring_alternatives";
    alternatives.flags = ["fast"];
    alternatives.steps = [
      { name: "clean", operation: "clean", operationVersion: "1" },
      { name: "score", operation: "score", operationVersion: "1", when: { flag: "fast", equals: false } } as Definition["steps"][number],
      { name: "quick", operation: "fastScore", operationVersion: "1", when: { flag: "fast", equals: true } } as Definition["steps"][number],
    ];
    alternatives.wires.push({ from: "clean.cleaned", to: "quick.data" }, { from: "quick.score", to: "out.score" });
    expect(await registerComposite(t, alternatives)).toMatchObject({ __typename: "CompositeDefinition", sound: true, flags: ["fast"] });
  });

  const refusals: [string, (d: Definition) => unknown, Record<string, unknown>][] = [
    ["an empty name", (d) => (d.name = " "), { rule: "EMPTY_NAME" }],
    ["a control character in a step name", (d) => (d.steps[0].name = "cle\u0000an"), { rule: "INVALID_CHARACTERS", step: "cle\u0000an" }],
    ["an empty composite role", (d) => (d.inputs[0].role = ""), { rule: "EMPTY_ROLE", role: "" }],
    ["a role starting with $", (d) => (d.outputs[0].role = "$score"), { rule: "RESERVED_ROLE", role: "$score" }],
    ["an input role declared twice", (d) => d.inputs.push({ role: "data", artifactType: "csv" }), { rule: "DUPLICATE_ROLE", role: "data" }],
    ["no outputs", (d) => (d.outputs = []), { rule: "NO_OUTPUTS" }],
    ["no steps", (d) => (d.steps = []), { rule: "NO_STEPS" }],
    ["a flag declared twice", (d) => (d.flags = ["f", "f"]), { rule: "DUPLICATE_FLAG", candidates: ["f"] }],
    ["eleven flags", (d) => (d.flags = Array.from({ length: 11 }, (_, i) => `f${i}`)), { rule: "TOO_MANY_FLAGS" }],
    ["a step named out", (d) => (d.steps[0].name = "out"), { rule: "RESERVED_STEP_NAME", step: "out" }],
    ["a step name with a dot", (d) => (d.steps[0].name = "a.b"), { rule: "RESERVED_STEP_NAME", step: "a.b" }],
    ["a step declared twice", (d) => d.steps.push({ ...d.steps[0] }), { rule: "DUPLICATE_STEP", step: "clean" }],
    ["a step running an unregistered operation", (d) => (d.steps[1].operationVersion = "9"), { rule: "UNKNOWN_OPERATION", step: "score", candidates: ["score@9"] }],
    ["a step running a composite", (d) => Object.assign(d.steps[1], { operation: "scoring", operationVersion: "1" }), { rule: "NESTED_COMPOSITE", step: "score" }],
    ["a condition on an undeclared flag", (d) => Object.assign(d.steps[1], { when: { flag: "nope", equals: true } }), { rule: "UNKNOWN_FLAG", step: "score" }],
    ["a wire from out.*", (d) => d.wires.push({ from: "out.score", to: "score.data" }), { rule: "BAD_WIRE_END", wire: "out.score → score.data" }],
    ["a wire into in.*", (d) => d.wires.push({ from: "clean.cleaned", to: "in.data" }), { rule: "BAD_WIRE_END", wire: "clean.cleaned → in.data" }],
    ["a wire without a role", (d) => d.wires.push({ from: "clean", to: "score.data" }), { rule: "BAD_WIRE_END", wire: "clean → score.data" }],
    ["a wire from an unknown step", (d) => d.wires.push({ from: "ghost.out", to: "score.data" }), { rule: "UNKNOWN_STEP", step: "ghost", wire: "ghost.out → score.data", candidates: ["clean", "score"] }],
    ["a wire from an unknown composite input", (d) => (d.wires[0].from = "in.rows"), { rule: "UNKNOWN_ROLE", role: "rows", wire: "in.rows → clean.data", candidates: ["data"] }],
    ["a wire into an unknown input role of a step", (d) => (d.wires[1].to = "score.rows"), { rule: "UNKNOWN_ROLE", step: "score", role: "rows", wire: "clean.cleaned → score.rows", candidates: ["data"] }],
    ["a wire from an unknown output role of a step", (d) => (d.wires[1].from = "clean.rows"), { rule: "UNKNOWN_ROLE", step: "clean", role: "rows", wire: "clean.rows → score.data", candidates: ["cleaned"] }],
    ["a wire into an unknown composite output", (d) => (d.wires[2].to = "out.total"), { rule: "UNKNOWN_ROLE", role: "total", wire: "score.score → out.total", candidates: ["score"] }],
    ["a composite input wired straight to an output", (d) => d.outputs.push({ role: "raw", artifactType: "csv" }) && d.wires.push({ from: "in.data", to: "out.raw" }), { rule: "PASSTHROUGH_WIRE", role: "raw", wire: "in.data → out.raw" }],
    ["a step feeding itself", (d) => d.wires.push({ from: "clean.cleaned", to: "clean.data" }), { rule: "SELF_LOOP", step: "clean", wire: "clean.cleaned → clean.data" }],
    ["ends of different artifact types", (d) => (d.wires[1] = { from: "in.data", to: "score.data" }) && d.wires.push({ from: "score.score", to: "clean.data" }), { rule: "TYPE_MISMATCH", wire: "score.score → clean.data", candidates: ["json", "csv"] }],
    ["a wire declared twice", (d) => d.wires.push({ ...d.wires[0] }), { rule: "DUPLICATE_WIRE", wire: "in.data → clean.data" }],
    [
      "a step feeding itself through another of its roles",
      (d) => {
        d.steps.push({ name: "enrich", operation: "enrich", operationVersion: "1" });
        d.wires.push({ from: "clean.cleaned", to: "enrich.data" }, { from: "enrich.enriched", to: "enrich.extra" });
      },
      { rule: "SELF_LOOP", step: "enrich", wire: "enrich.enriched → enrich.extra" },
    ],
    [
      "steps in a longer cycle",
      (d) => {
        d.steps.push({ name: "enrich", operation: "enrich", operationVersion: "1" });
        d.wires.push({ from: "clean.cleaned", to: "enrich.data" }, { from: "enrich.enriched", to: "clean.data" }, { from: "clean.cleaned", to: "enrich.extra" });
      },
      { rule: "CYCLE", step: "clean", candidates: ["clean", "enrich"] },
    ],
    ["a required step input no wire feeds", (d) => d.steps.push({ name: "enrich", operation: "enrich", operationVersion: "1" }) && d.wires.push({ from: "clean.cleaned", to: "enrich.data" }), { rule: "UNFED_INPUT", step: "enrich", role: "extra" }],
    ["a composite output no wire feeds", (d) => d.outputs.push({ role: "extra", artifactType: "csv" }), { rule: "UNFED_OUTPUT", role: "extra" }],
    ["the name of an operation", (d) => (d.name = "clean"), { rule: "NAME_TAKEN", candidates: ["clean@1"] }],
    ["another definition under a registered name and version", (d) => (d.intermediates = "DISCARD"), { rule: "IMMUTABLE_VERSION", candidates: ["scoring@1"] }],
  ];

  test.each(refusals)("refuses %s", async (_what, change, expected) => {
    const definition = base();
    change(definition);
    const before = await tableCounts(t);
    const result = await registerComposite(t, definition);
    expect(result).toMatchObject({ __typename: "CompositeDeclarationError", code: "COMPOSITE_DECLARATION", step: null, role: null, wire: null, ...expected });
    expect(result.message).toMatch(/^composite /);
    expect(await tableCounts(t)).toEqual(before);
  });

  test("registerOperation refuses kind COMPOSITE, and a composite's operation cannot be recorded as a plain execution", async () => {
    const refused = await registerOperation(t, { ...creator("sneaky", [["data", "csv"]], [["out", "csv"]]), kind: "COMPOSITE" });
    expect(refused).toMatchObject({ __typename: "OperationDeclarationError", rule: "COMPOSITE_KIND" });
    const before = await tableCounts(t);
    const res = await t.gql(`mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename } }`, {
      input: { operation: "scoring", operationVersion: "1", inputs: [], outputs: [{ role: "score", artifacts: [draft("s.json")] }] },
    });
    expect(errorCodes(res)).toEqual(["INVALID_ARGUMENT"]);
    expect(res.errors![0]).toMatchObject({ message: "operation: scoring@1 is a composite: record its runs with recordCompositeExecution", extensions: { field: "operation" } });
    expect(await tableCounts(t)).toEqual(before);
    void recordExecution;
  });
});
