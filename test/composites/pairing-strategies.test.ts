import { pairByCrossProduct, pairByPosition, pairBySharedAncestor } from "../../plugins/pairing";
import type { InputArtifact } from "../../plugins/types";
import { groupIdFor } from "../../src/services/recording";
import { drafts } from "../support/composite-fixtures";
import { recordCompositeOk, registerComposite } from "../support/composites";
import { edgesByName, RECORD_EXECUTION, recordOk, registerOperation, tableCounts } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

// Issue 9, item 5: pairing strategies beside ZIP. CROSS_PRODUCT pairs every combination across roles;
// LINEAGE pairs two roles by a shared ancestor (the artifact itself counting) and reports what it could
// not pair; ZIP with unequal roles names each role's count.

const input = (id: string, role: string, index: number): InputArtifact => ({ id, role, index, artifactType: "csv", originalName: `${id}.csv` });

describe("pairing (unit)", () => {
  const [a0, a1, b0] = [input("a0", "a", 0), input("a1", "a", 1), input("b0", "b", 0)];
  test("ZIP: position by position; beyond the shortest role, unpaired", () => {
    expect(pairByPosition([[a0, a1], [b0]])).toEqual({ strategy: "ZIP", groups: [[a0, b0]], unpaired: [a1] });
  });
  test("CROSS_PRODUCT: every combination, first role slowest; an empty role gives none", () => {
    const b1 = input("b1", "b", 1);
    expect(pairByCrossProduct([[a0, a1], [b0, b1]]).groups).toEqual([[a0, b0], [a0, b1], [a1, b0], [a1, b1]]);
    expect(pairByCrossProduct([[a0, a1], []])).toEqual({ strategy: "CROSS_PRODUCT", groups: [], unpaired: [a0, a1] });
  });
  test("LINEAGE: a shared ancestor pairs, the artifact itself counting; the rest is unpaired", async () => {
    const ancestry: Record<string, string[]> = { a0: ["root"], b0: ["root"], a1: [], b1: ["a1"], b2: ["other"] };
    const port = { artifactsByIds: async () => [], ancestorsOf: async (ids: readonly string[]) => ids.flatMap((id) => (ancestry[id] ?? []).map((ancestorId) => ({ id, ancestorId }))) };
    const [b1, b2] = [input("b1", "b", 1), input("b2", "b", 2)];
    expect(await pairBySharedAncestor([[a0, a1], [b0, b1, b2]], port)).toEqual({ strategy: "LINEAGE", groups: [[a0, b0], [a1, b1]], unpaired: [b2] });
  });
});

describe("pairing strategies through recordExecution", () => {
  let t: TestApp;
  const ids: Record<string, string> = {};
  const generate = async (names: string[], type = "csv") => {
    const op = `gen_${type}`;
    Object.assign(ids, (await recordOk(t, { operation: op, operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: drafts("gen", names) }] })).outputIds);
  };
  const record = async (input: Record<string, unknown>) => (await t.gql(RECORD_EXECUTION.replace("edgeCount", "edgeCount unpaired { role position artifact { originalName } }"), { input })).data!.recordExecution;

  beforeAll(async () => {
    t = await createTestApp();
    for (const type of ["csv", "json"]) await registerOperation(t, { name: `gen_${type}`, version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: type, inferLineageFrom: { inputs: [] } }] });
    await registerOperation(t, { name: "derive", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] });
    await registerOperation(t, {
      name: "sweep",
      version: "1",
      kind: "CREATOR",
      groupBy: "CROSS_PRODUCT",
      inputs: [{ role: "data", artifactType: "csv" }, { role: "config", artifactType: "json", required: false }],
      outputs: [{ role: "result", artifactType: "csv", required: false, inferLineageFrom: { inputs: ["data"] } }],
    });
    await registerOperation(t, {
      name: "compare",
      version: "1",
      kind: "CREATOR",
      groupBy: "LINEAGE",
      inputs: [{ role: "sample", artifactType: "csv" }, { role: "reference", artifactType: "csv" }],
      outputs: [{ role: "diff", artifactType: "csv", required: false, inferLineageFrom: { inputs: ["sample"] } }],
    });
    await registerOperation(t, { name: "zip", version: "1", kind: "CREATOR", groupBy: "ZIP", inputs: [{ role: "data", artifactType: "csv" }, { role: "config", artifactType: "json" }], outputs: [{ role: "o", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] });
    await generate(["s1.csv", "s2.csv", "r1.csv", "r2.csv", "r3.csv", "s4.csv"]);
    await generate(["cfgA.json", "cfgB.json"], "json");
    for (const [from, to] of [["r1.csv", "r1_s.csv"], ["r1.csv", "r1_f.csv"], ["r2.csv", "r2_s.csv"], ["r3.csv", "r3_f.csv"], ["s4.csv", "s4_f.csv"]]) {
      Object.assign(ids, (await recordOk(t, { operation: "derive", operationVersion: "1", inputs: [{ role: "data", artifactIds: [ids[from]] }], outputs: [{ role: "out", artifacts: drafts("gen", [to]) }] })).outputIds);
    }
  });
  afterAll(() => t.close());

  test("registration: CROSS_PRODUCT needs two roles or more, LINEAGE exactly two", async () => {
    const one = { version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "o", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] };
    expect(await registerOperation(t, { ...one, name: "x1", groupBy: "CROSS_PRODUCT" })).toMatchObject({ rule: "GROUP_BY_NEEDS_ROLES" });
    const three = { ...one, inputs: ["a", "b", "c"].map((role) => ({ role, artifactType: "csv" })), outputs: [{ role: "o", artifactType: "csv", inferLineageFrom: { inputs: ["a"] } }] };
    expect(await registerOperation(t, { ...three, name: "x2", groupBy: "LINEAGE" })).toMatchObject({ rule: "GROUP_BY_NEEDS_ROLES", message: "x2@1: groupBy LINEAGE pairs the artifacts of exactly two input roles by a shared ancestor; 3 are declared" });
  });

  test("CROSS_PRODUCT: each output joins its data artifact and the config the rest of its name names, one group per combination", async () => {
    const result = await record({
      operation: "sweep",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: [ids["s1.csv"], ids["s2.csv"]] }, { role: "config", artifactIds: [ids["cfgA.json"], ids["cfgB.json"]] }],
      outputs: [{ role: "result", artifacts: drafts("sweep", ["s1_cfgA.csv", "s1_cfgB.csv", "s2_cfgA.csv", "s2-cfgB.csv"]) }],
    });
    expect(result).toMatchObject({ __typename: "RecordExecutionPayload", edgeCount: 8, unpaired: [] });
    const edges = (await edgesByName(t)).filter((e) => e.runId === result.execution.runId).map((e) => [e.source, e.target, e.kind, e.groupId]);
    const group = (d: string, c: string) => groupIdFor([ids[d], ids[c]]);
    expect(edges).toEqual([
      ["cfgA.json", "s1_cfgA.csv", "CO_INPUT", group("s1.csv", "cfgA.json")],
      ["s1.csv", "s1_cfgA.csv", "CO_INPUT", group("s1.csv", "cfgA.json")],
      ["cfgB.json", "s1_cfgB.csv", "CO_INPUT", group("s1.csv", "cfgB.json")],
      ["s1.csv", "s1_cfgB.csv", "CO_INPUT", group("s1.csv", "cfgB.json")],
      ["cfgB.json", "s2-cfgB.csv", "CO_INPUT", group("s2.csv", "cfgB.json")],
      ["s2.csv", "s2-cfgB.csv", "CO_INPUT", group("s2.csv", "cfgB.json")],
      ["cfgA.json", "s2_cfgA.csv", "CO_INPUT", group("s2.csv", "cfgA.json")],
      ["s2.csv", "s2_cfgA.csv", "CO_INPUT", group("s2.csv", "cfgA.json")],
    ]);
  });

  test("CROSS_PRODUCT: an output that names no config is unmapped; an empty config role gives no group, every input reported unpaired", async () => {
    const before = await tableCounts(t);
    const ambiguous = await record({
      operation: "sweep",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: [ids["s1.csv"]] }, { role: "config", artifactIds: [ids["cfgA.json"], ids["cfgB.json"]] }],
      outputs: [{ role: "result", artifacts: drafts("sweep2", ["s1_final.csv"]) }],
    });
    expect(ambiguous).toMatchObject({ __typename: "LineageCompletenessError", rule: "NO_LINEAGE_MAPPING", output: "s1_final.csv" });
    expect(await tableCounts(t)).toEqual(before);
    const empty = await record({ operation: "sweep", operationVersion: "1", inputs: [{ role: "data", artifactIds: [ids["s1.csv"], ids["s2.csv"]] }], outputs: [] });
    expect(empty).toMatchObject({ __typename: "RecordExecutionPayload", edgeCount: 0, unpaired: [{ role: "data", position: 0, artifact: { originalName: "s1.csv" } }, { role: "data", position: 1, artifact: { originalName: "s2.csv" } }] });
  });

  test("LINEAGE: samples pair with references they share an ancestor with (the artifact itself counting); the others are reported unpaired", async () => {
    const result = await record({
      operation: "compare",
      operationVersion: "1",
      inputs: [{ role: "sample", artifactIds: [ids["r1_s.csv"], ids["r2_s.csv"], ids["s4.csv"]] }, { role: "reference", artifactIds: [ids["r1_f.csv"], ids["r3_f.csv"], ids["s4_f.csv"]] }],
      outputs: [{ role: "diff", artifacts: drafts("cmp", ["r1_s_diff.csv", "s4_diff.csv"]) }],
    });
    expect(result).toMatchObject({
      __typename: "RecordExecutionPayload",
      edgeCount: 4,
      unpaired: [
        { role: "reference", position: 1, artifact: { originalName: "r3_f.csv" } },
        { role: "sample", position: 1, artifact: { originalName: "r2_s.csv" } },
      ],
    });
    const edges = (await edgesByName(t)).filter((e) => e.runId === result.execution.runId).map((e) => [e.source, e.target, e.groupId]);
    expect(edges).toEqual([
      ["r1_f.csv", "r1_s_diff.csv", groupIdFor([ids["r1_s.csv"], ids["r1_f.csv"]])],
      ["r1_s.csv", "r1_s_diff.csv", groupIdFor([ids["r1_s.csv"], ids["r1_f.csv"]])],
      ["s4.csv", "s4_diff.csv", groupIdFor([ids["s4.csv"], ids["s4_f.csv"]])],
      ["s4_f.csv", "s4_diff.csv", groupIdFor([ids["s4.csv"], ids["s4_f.csv"]])],
    ]);
  });

  test("LINEAGE inside a DISCARD composite pairs through the intermediates the unit has not stored (and never will)", async () => {
    await registerComposite(t, {
      name: "self_compare",
      version: "1",
      inputs: [{ role: "raw", artifactType: "csv" }],
      outputs: [{ role: "diff", artifactType: "csv" }],
      steps: [
        { name: "sample", operation: "derive", operationVersion: "1" },
        { name: "reference", operation: "derive", operationVersion: "1" },
        { name: "compare", operation: "compare", operationVersion: "1" },
      ],
      wires: [
        { from: "in.raw", to: "sample.data" },
        { from: "in.raw", to: "reference.data" },
        { from: "sample.out", to: "compare.sample" },
        { from: "reference.out", to: "compare.reference" },
        { from: "compare.diff", to: "out.diff" },
      ],
      intermediates: "DISCARD",
    });
    const result = await recordCompositeOk(t, {
      composite: "self_compare",
      compositeVersion: "1",
      inputs: [{ role: "raw", artifactIds: [ids["r2.csv"]] }],
      steps: [
        { step: "sample", outputs: [{ role: "out", artifacts: drafts("sc", ["r2_x.csv"]) }] },
        { step: "reference", outputs: [{ role: "out", artifacts: drafts("sc", ["r2_y.csv"]) }] },
        { step: "compare", outputs: [{ role: "diff", artifacts: drafts("sc", ["r2_x_diff.csv"]) }] },
      ],
    });
    expect(result.unpaired).toEqual([]);
    const edges = (await edgesByName(t)).filter((e) => e.runId === result.execution.runId).map((e) => [e.source, e.target, e.kind]);
    expect(edges).toEqual([["r2.csv", "r2_x_diff.csv", "INDEPENDENT"]]);
  });

  test("ZIP with unequal role lengths names the roles and their counts", async () => {
    const result = await record({
      operation: "zip",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: [ids["s1.csv"], ids["s2.csv"]] }, { role: "config", artifactIds: [ids["cfgA.json"]] }],
      outputs: [{ role: "o", artifacts: drafts("zip", ["s1_o.csv"]) }],
    });
    expect(result).toMatchObject({ __typename: "ArtifactValidationError", rule: "ZIP_LENGTH_MISMATCH", role: "config", message: "groupBy ZIP pairs the i-th artifact of every input role, but 'data' has 2, 'config' has 1" });
  });
});
