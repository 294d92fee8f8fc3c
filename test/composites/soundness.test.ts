import { checkSoundness, type CompositeStep, type Wire } from "../../src/services/composites";
import type { OperationId } from "../../src/services/ids";
import { registerOperation } from "../support/recording";
import { registerComposite } from "../support/composites";
import { createTestApp, type TestApp } from "../support/test-app";
import { tableCounts } from "../support/recording";

// Issue 9, item 4: classical workflow-net soundness per combination of flag values, with witnesses.

/** A net definition from a compact spec: steps by name (required input roles), wires as "from → to". */
function net(spec: { flags?: string[]; outputs: string[]; steps: { name: string; inputs: string[]; when?: { flag: string; equals: boolean } }[]; wires: string[] }) {
  const end = (text: string) => {
    const [head, role] = [text.slice(0, text.indexOf(".")), text.slice(text.indexOf(".") + 1)];
    return head === "in" ? { kind: "input" as const, role } : head === "out" ? { kind: "output" as const, role } : { kind: "step" as const, step: head, role };
  };
  const wires = spec.wires.map((w) => {
    const [from, to] = w.split(" → ");
    return { from, to, source: end(from), target: end(to) } as Wire;
  });
  const steps: CompositeStep[] = spec.steps.map((s) => ({
    name: s.name,
    operation: s.name,
    operationVersion: "1",
    operationId: `op_${s.name}` as OperationId,
    when: s.when ?? null,
    inputs: s.inputs.map((role) => ({ role, artifactType: "csv", required: true, generative: false })),
    outputs: [{ role: "out", artifactType: "csv", required: true, generative: false }],
  }));
  return { flags: spec.flags ?? [], outputs: spec.outputs.map((role) => ({ role, artifactType: "csv" })), steps, wires };
}

describe("workflow-net soundness (unit)", () => {
  test("a sound net: a chain from the source to the sink, every step firing, nothing left over", () => {
    const report = checkSoundness(net({ outputs: ["result"], steps: [{ name: "a", inputs: ["data"] }, { name: "b", inputs: ["data"] }], wires: ["in.x → a.data", "a.out → b.data", "b.out → out.result"] }));
    expect(report).toEqual({
      sound: true,
      bound: 10_000,
      boundHit: false,
      combinations: [
        {
          flags: [],
          inactiveSteps: [],
          optionToComplete: true,
          optionToCompleteWitness: null,
          properCompletion: true,
          properCompletionWitness: null,
          noDeadTransitions: true,
          deadSteps: [],
          markingsExplored: 5,
          boundHit: false,
          sound: true,
        },
      ],
    });
  });

  /** 'publish' should run only after 'stage' (dryRun=true) but is declared unconditional: under dryRun=false it never runs. */
  const deadStep = {
    flags: ["dryRun"],
    outputs: ["result"],
    steps: [
      { name: "compute", inputs: ["data"] },
      { name: "stage", inputs: ["data"], when: { flag: "dryRun", equals: true } },
      { name: "publish", inputs: ["data"] },
      { name: "fallback", inputs: ["data"], when: { flag: "dryRun", equals: false } },
    ],
    wires: ["in.x → compute.data", "compute.out → stage.data", "stage.out → publish.data", "publish.out → out.result", "compute.out → fallback.data", "fallback.out → out.result"],
  };

  test("a dead step: under dryRun=false the step feeding 'publish' does not run, so 'publish' never fires (the run still completes properly)", () => {
    const report = checkSoundness(net(deadStep));
    expect(report.sound).toBe(false);
    expect(report.combinations.map((c) => [c.flags, c.inactiveSteps, c.optionToComplete, c.properCompletion, c.noDeadTransitions, c.deadSteps, c.sound])).toEqual([
      [[{ flag: "dryRun", value: false }], ["stage"], true, true, false, ["publish"], false],
      [[{ flag: "dryRun", value: true }], ["fallback"], true, true, true, [], true],
    ]);
  });

  test("a step whose outputs go nowhere is waited for: the run does not complete before it has", () => {
    const report = checkSoundness(net({ outputs: ["result"], steps: [{ name: "a", inputs: ["data"] }, { name: "audit", inputs: ["data"] }], wires: ["in.x → a.data", "in.x → audit.data", "a.out → out.result"] }));
    expect(report.combinations[0]).toMatchObject({ sound: true, properCompletion: true, markingsExplored: 6 });
  });

  test("a branch that writes an output twice: with fast=true both branches deliver, the run completes twice (improper completion)", () => {
    const report = checkSoundness(
      net({
        flags: ["fast"],
        outputs: ["result"],
        steps: [
          { name: "prepare", inputs: ["data"] },
          { name: "quick", inputs: ["data"], when: { flag: "fast", equals: true } },
          { name: "thorough", inputs: ["data"] },
        ],
        wires: ["in.x → prepare.data", "prepare.out → quick.data", "prepare.out → thorough.data", "quick.out → out.result", "thorough.out → out.result"],
      }),
    );
    const [slow, fast] = report.combinations;
    expect(slow.sound).toBe(true);
    expect(fast).toMatchObject({ optionToComplete: true, properCompletion: false, noDeadTransitions: true, sound: false });
    expect(fast.properCompletionWitness).toEqual({ firingSequence: ["in", "prepare", "quick", "thorough", "out", "out"], marking: [{ place: "sink", tokens: 2 }], leftoverPlaces: ["sink"] });
  });

  test("a net that can deadlock: with review=false nothing delivers 'approval', so the finished 'report' waits forever", () => {
    const report = checkSoundness(
      net({
        flags: ["review"],
        outputs: ["report", "approval"],
        steps: [
          { name: "write", inputs: ["data"] },
          { name: "approve", inputs: ["data"], when: { flag: "review", equals: true } },
        ],
        wires: ["in.x → write.data", "in.x → approve.data", "write.out → out.report", "approve.out → out.approval"],
      }),
    );
    const [noReview, withReview] = report.combinations;
    expect(withReview.sound).toBe(true);
    expect(noReview).toMatchObject({ inactiveSteps: ["approve"], optionToComplete: false, properCompletion: true, noDeadTransitions: true, deadSteps: [], sound: false });
    expect(noReview.optionToCompleteWitness).toEqual({ firingSequence: ["in", "write"], marking: [{ place: "out.report", tokens: 1 }], leftoverPlaces: ["out.report"] });
  });

  test("the exploration stops at the bound and says so: the answer is not 'sound'", () => {
    const steps = Array.from({ length: 6 }, (_, i) => ({ name: `s${i}`, inputs: ["data"] }));
    const definition = net({ outputs: ["result"], steps, wires: [...steps.map((s) => `in.x → ${s.name}.data`), ...steps.map((s) => `${s.name}.out → out.result`)] });
    const bounded = checkSoundness(definition, 50);
    expect(bounded).toMatchObject({ sound: false, bound: 50, boundHit: true });
    expect(bounded.combinations[0]).toMatchObject({ markingsExplored: 50, boundHit: true, sound: false });
    // Fully explored, the same net is unsound anyway: six deliveries into one output role.
    expect(checkSoundness(definition).combinations[0]).toMatchObject({ boundHit: false, properCompletion: false, sound: false });
  });

  test("a total budget over all combinations: once it is spent, the remaining combinations stop at their first marking", () => {
    const chain = net({ flags: ["f", "g"], outputs: ["result"], steps: [{ name: "a", inputs: ["data"] }], wires: ["in.x → a.data", "a.out → out.result"] });
    const report = checkSoundness(chain, 10_000, 10);
    expect(report.combinations.map((c) => [c.markingsExplored, c.boundHit, c.sound])).toEqual([
      [4, false, true],
      [4, false, true],
      [2, true, false],
      [1, true, false],
    ]);
    expect(report).toMatchObject({ sound: false, boundHit: true });
  });
});

describe("soundness through the API", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    for (const name of ["compute", "stage", "publish", "fallback"]) {
      await registerOperation(t, { name, version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] });
    }
  });
  afterAll(() => t.close());

  const deadStep = (allowUnsound: boolean) => ({
    name: "dead_step",
    version: "1",
    inputs: [{ role: "x", artifactType: "csv" }],
    outputs: [{ role: "result", artifactType: "csv" }],
    flags: ["dryRun"],
    steps: [
      { name: "compute", operation: "compute", operationVersion: "1" },
      { name: "stage", operation: "stage", operationVersion: "1", when: { flag: "dryRun", equals: true } },
      { name: "publish", operation: "publish", operationVersion: "1" },
      { name: "fallback", operation: "fallback", operationVersion: "1", when: { flag: "dryRun", equals: false } },
    ],
    wires: [
      { from: "in.x", to: "compute.data" },
      { from: "compute.out", to: "stage.data" },
      { from: "stage.out", to: "publish.data" },
      { from: "publish.out", to: "out.result" },
      { from: "compute.out", to: "fallback.data" },
      { from: "fallback.out", to: "out.result" },
    ],
    intermediates: "PERSIST",
    allowUnsound,
  });

  test("registerComposite refuses an unsound definition (COMPOSITE_DECLARATION, rule UNSOUND) with the witness, writing nothing", async () => {
    const before = await tableCounts(t);
    const refused = await registerComposite(t, deadStep(false));
    expect(refused).toEqual({
      __typename: "CompositeDeclarationError",
      code: "COMPOSITE_DECLARATION",
      rule: "UNSOUND",
      step: null,
      role: null,
      wire: null,
      candidates: [],
      message: "composite dead_step@1 is unsound under dryRun=false: dead step 'publish' never fires (register it with allowUnsound: true to keep it anyway)",
      soundness: {
        sound: false,
        combinations: [
          { flags: [{ flag: "dryRun", value: false }], sound: false, optionToComplete: true, properCompletion: true, noDeadTransitions: false, deadSteps: ["publish"] },
          { flags: [{ flag: "dryRun", value: true }], sound: true, optionToComplete: true, properCompletion: true, noDeadTransitions: true, deadSteps: [] },
        ],
      },
    });
    expect(await tableCounts(t)).toEqual(before);
  });

  test("allowUnsound: true registers it anyway (sound: false), and workflowSoundness reports the witness", async () => {
    expect(await registerComposite(t, deadStep(true))).toMatchObject({ __typename: "CompositeDefinition", sound: false });
    const res = await t.gql(`{ workflowSoundness(name: "dead_step", version: "1") { sound bound boundHit combinations { flags { flag value } inactiveSteps deadSteps markingsExplored optionToCompleteWitness { firingSequence } } } }`);
    expect(res).toEqual({
      data: {
        workflowSoundness: {
          sound: false,
          bound: 10000,
          boundHit: false,
          combinations: [
            { flags: [{ flag: "dryRun", value: false }], inactiveSteps: ["stage"], deadSteps: ["publish"], markingsExplored: 5, optionToCompleteWitness: null },
            { flags: [{ flag: "dryRun", value: true }], inactiveSteps: ["fallback"], deadSteps: [], markingsExplored: 6, optionToCompleteWitness: null },
          ],
        },
      },
    });
    const missing = await t.gql(`{ workflowSoundness(name: "nope", version: "1") { sound } }`);
    expect(missing.errors?.map((e) => [e.extensions?.code, e.extensions?.field])).toEqual([["NOT_FOUND", "name"]]);
  });

  test("registering an unsound definition again without allowUnsound is still refused; with it, a no-op", async () => {
    expect((await registerComposite(t, deadStep(false))).rule).toBe("UNSOUND");
    const before = await tableCounts(t);
    expect((await registerComposite(t, deadStep(true))).__typename).toBe("CompositeDefinition");
    expect(await tableCounts(t)).toEqual(before);
  });
});
