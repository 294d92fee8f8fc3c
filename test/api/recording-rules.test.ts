import { artifactIdFor } from "../../src/services/ids";
import { draft, edgesByName, recordExecution, recordOk, registerOperation, sha256Of, tableCounts } from "../support/recording";
import { createTestApp, errorCodes, type TestApp } from "../support/test-app";

/**
 * The lineage rules of issue 7, each through yoga.fetch with the exact edges recorded, or the exact
 * error and every table count unchanged.
 */

const generative = (role: string, artifactType: string) => ({ role, artifactType, required: false, inferLineageFrom: { inputs: [] } });
const operations = [
  { name: "generate", version: "1", kind: "CREATOR", inputs: [], outputs: [generative("csv", "csv"), generative("json", "json"), generative("bin", "bin"), generative("txt", "txt")] },
  { name: "transform", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "result", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] },
  {
    name: "compare-both",
    version: "1",
    kind: "CREATOR",
    groupBy: "ZIP",
    inputs: [
      { role: "left", artifactType: "csv" },
      { role: "right", artifactType: "json" },
    ],
    outputs: [{ role: "diff", artifactType: "csv", inferLineageFrom: { inputs: ["left", "right"] } }],
  },
  {
    name: "compare-right",
    version: "1",
    kind: "CREATOR",
    groupBy: "ZIP",
    inputs: [
      { role: "left", artifactType: "csv" },
      { role: "right", artifactType: "json" },
    ],
    outputs: [{ role: "diff", artifactType: "csv", inferLineageFrom: { inputs: ["right", "left"] } }],
  },
  {
    name: "pair",
    version: "1",
    kind: "CREATOR",
    groupBy: "ZIP",
    inputs: [
      { role: "left", artifactType: "csv" },
      { role: "right", artifactType: "csv" },
    ],
    outputs: [{ role: "diff", artifactType: "csv", inferLineageFrom: { inputs: ["left"] } }],
  },
  {
    name: "optional",
    version: "1",
    kind: "CREATOR",
    inputs: [
      { role: "data", artifactType: "csv" },
      { role: "extra", artifactType: "csv", required: false },
    ],
    outputs: [{ role: "result", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }],
  },
  { name: "select", version: "1", kind: "CURATOR", inputs: [{ role: "candidates", artifactType: "csv" }], outputs: [{ role: "selected", artifactType: "csv" }] },
  {
    name: "split",
    version: "1",
    kind: "CREATOR",
    inputs: [{ role: "data", artifactType: "csv" }],
    outputs: [
      { role: "main", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } },
      { role: "extra", artifactType: "csv", required: false, inferLineageFrom: { inputs: ["data"] } },
    ],
  },
  {
    name: "trio",
    version: "1",
    kind: "CREATOR",
    inputs: [{ role: "data", artifactType: "csv" }],
    outputs: ["x", "y", "z"].map((role) => ({ role, artifactType: "csv", required: false, inferLineageFrom: { inputs: ["data"] } })),
  },
  {
    name: "fold",
    version: "1",
    kind: "CREATOR",
    inputs: [{ role: "sequence", artifactType: "csv" }],
    outputs: [
      { role: "structure", artifactType: "pdb", inferLineageFrom: { inputs: ["sequence"] } },
      { role: "metric", artifactType: "json", inferLineageFrom: { outputs: ["structure"] } },
    ],
  },
  { name: "write-config", version: "1", kind: "CREATOR", inputs: [], outputs: [generative("config", "json"), generative("notes", "txt")] },
];

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
  for (const operation of operations) await registerOperation(t, operation);
});
afterAll(() => t.close());

/** Records orphans of one type through `generate`; returns their ids by name. */
async function seed(role: "csv" | "json" | "bin" | "txt", names: string[]): Promise<Record<string, string>> {
  return (await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role, artifacts: names.map(draft) }] })).outputIds;
}

const transformOf = (inputIds: string[], outputs: (string | object)[], extra: object = {}) => ({
  operation: "transform",
  operationVersion: "1",
  inputs: [{ role: "data", artifactIds: inputIds }],
  outputs: [{ role: "result", artifacts: outputs.map((o) => (typeof o === "string" ? draft(o) : o)) }],
  ...extra,
});

/** [source, target, kind] of every edge one run recorded, sorted by target then source. */
async function edgesOf(runId: string) {
  return (await edgesByName(t)).filter((e) => e.runId === runId).map((e) => [e.source, e.target, e.kind]);
}

/** The run's edges as [source, target, kind, groupId]. */
async function groupedEdgesOf(runId: string) {
  return (await edgesByName(t)).filter((e) => e.runId === runId).map((e) => [e.source, e.target, e.kind, e.groupId]);
}

/** Expects a typed failure of recordExecution and nothing written. */
async function expectRejected(input: Record<string, unknown>, expected: Record<string, unknown>) {
  const before = await tableCounts(t);
  const result = await recordExecution(t, input);
  expect(result).toMatchObject(expected);
  expect(typeof result.message).toBe("string");
  expect(await tableCounts(t)).toEqual(before);
  return result;
}

/** Expects a GraphQL error with this code and field, and nothing written. */
async function expectGraphQLError(input: Record<string, unknown>, code: string, field: string) {
  const before = await tableCounts(t);
  const res = await t.gql(`mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename } }`, { input });
  expect(errorCodes(res)).toEqual([code]);
  expect(res.errors![0].extensions!.field).toBe(field);
  expect(await tableCounts(t)).toEqual(before);
  return res.errors![0];
}

describe("rule 1: an extension is a trailing segment of letters and digits, not every dot", () => {
  test("v1.2.3_data_out.csv is not derived from v1.9.9_other.csv: it has no lineage, and nothing is written", async () => {
    const inputs = await seed("csv", ["v1.9.9_other.csv"]);
    await expectRejected(transformOf([inputs["v1.9.9_other.csv"]], ["v1.2.3_data_out.csv"]), {
      __typename: "LineageCompletenessError",
      rule: "NO_LINEAGE_MAPPING",
      outputs: ["v1.2.3_data_out.csv"],
      candidates: ["v1.9.9_other.csv"],
    });
  });

  test("beside other versions, v1.2.3_data_out.csv derives from v1.2.3_data.csv", async () => {
    const inputs = await seed("csv", ["v1.2.3_data.csv", "v1.9.9_other.csv", "v1.2.4_data.csv"]);
    const run = await recordOk(t, transformOf(Object.values(inputs), ["v1.2.3_data_out.csv"]));
    expect(await edgesOf(run.runId)).toEqual([["v1.2.3_data.csv", "v1.2.3_data_out.csv", "INDEPENDENT"]]);
  });

  test("S1.1_R1 and S1.2_R1 no longer collide: each trimmed read derives from its own sample", async () => {
    const inputs = await seed("csv", ["S1.1_R1.fastq.gz", "S1.2_R1.fastq.gz"]);
    const run = await recordOk(t, transformOf(Object.values(inputs), ["S1.2_R1_trimmed.fastq.gz", "S1.1_R1_trimmed.fastq.gz"]));
    expect(await edgesOf(run.runId)).toEqual([
      ["S1.1_R1.fastq.gz", "S1.1_R1_trimmed.fastq.gz", "INDEPENDENT"],
      ["S1.2_R1.fastq.gz", "S1.2_R1_trimmed.fastq.gz", "INDEPENDENT"],
    ]);
  });

  test("multi-part extensions go whole (archive.tar.gz.part, x.fa.gz); design_1.0 still matches design_1; report 1.5 keeps its version", async () => {
    const inputs = await seed("csv", ["archive.csv", "x.csv", "design_1.json", "report 1.5.docx", "report 1.50.docx"]);
    const run = await recordOk(t, transformOf(Object.values(inputs), ["archive.tar.gz.part", "x.fa.gz", "design_1.0.json", "report 1.5.pdf"]));
    expect(await edgesOf(run.runId)).toEqual([
      ["archive.csv", "archive.tar.gz.part", "INDEPENDENT"],
      ["design_1.json", "design_1.0.json", "INDEPENDENT"],
      ["report 1.5.docx", "report 1.5.pdf", "INDEPENDENT"],
      ["x.csv", "x.fa.gz", "INDEPENDENT"],
    ]);
  });
});

describe("rule 2: ZIP matches against the primary role only", () => {
  test("s1.csv (left) beside s1.json (right) is no rival: each output gets its left match and the right partner at that index", async () => {
    const left = await seed("csv", ["s1.csv", "s2.csv"]);
    const right = await seed("json", ["s1.json", "s2.json"]);
    const run = await recordOk(t, {
      operation: "compare-both",
      operationVersion: "1",
      inputs: [
        { role: "left", artifactIds: [left["s1.csv"], left["s2.csv"]] },
        { role: "right", artifactIds: [right["s1.json"], right["s2.json"]] },
      ],
      outputs: [{ role: "diff", artifacts: [draft("s1_cmp.csv"), draft("s2_cmp.csv")] }],
    });
    const edges = await groupedEdgesOf(run.runId);
    expect(edges.map(([source, target, kind]) => [source, target, kind])).toEqual([
      ["s1.csv", "s1_cmp.csv", "CO_INPUT"],
      ["s1.json", "s1_cmp.csv", "CO_INPUT"],
      ["s2.csv", "s2_cmp.csv", "CO_INPUT"],
      ["s2.json", "s2_cmp.csv", "CO_INPUT"],
    ]);
    expect(edges[0][3]).toBe(edges[1][3]);
    expect(edges[2][3]).toBe(edges[3][3]);
    expect(edges[0][3]).not.toBe(edges[2][3]);
  });

  test("the primary role is the first one inferLineageFrom names: with [right, left], outputs match right names only", async () => {
    const left = await seed("csv", ["p1.csv", "p2.csv"]);
    const right = await seed("json", ["q1.json", "q2.json"]);
    const request = (output: string) => ({
      operation: "compare-right",
      operationVersion: "1",
      inputs: [
        { role: "left", artifactIds: [left["p1.csv"], left["p2.csv"]] },
        { role: "right", artifactIds: [right["q1.json"], right["q2.json"]] },
      ],
      outputs: [{ role: "diff", artifacts: [draft(output)] }],
    });
    const run = await recordOk(t, request("q2_cmp.csv"));
    expect(await edgesOf(run.runId)).toEqual([
      ["p2.csv", "q2_cmp.csv", "CO_INPUT"],
      ["q2.json", "q2_cmp.csv", "CO_INPUT"],
    ]);
    await expectRejected(request("p1_cmp.csv"), { __typename: "LineageCompletenessError", outputs: ["p1_cmp.csv"], candidates: ["q1.json", "q2.json"] });
  });
});

describe("rule 3: the specId follows what decides the computation", () => {
  test("ZIP pairs by position: right [B1, B2] and [B2, B1] are different requests (and pair differently); the same pairs in another order are not", async () => {
    const a = await seed("csv", ["a1.csv", "a2.csv"]);
    const b = await seed("csv", ["b1.csv", "b2.csv"]);
    const request = (right: string[]) => ({
      operation: "pair",
      operationVersion: "1",
      inputs: [
        { role: "left", artifactIds: [a["a1.csv"], a["a2.csv"]] },
        { role: "right", artifactIds: right },
      ],
      outputs: [{ role: "diff", artifacts: [draft("a1_d.csv")] }],
    });
    const straight = await recordOk(t, request([b["b1.csv"], b["b2.csv"]]));
    const crossed = await recordOk(t, request([b["b2.csv"], b["b1.csv"]]));
    const again = await recordOk(t, request([b["b1.csv"], b["b2.csv"]]));
    // The same pairs (a1, b1) and (a2, b2), listed the other way round, are the same request.
    const samePairs = await recordOk(t, {
      ...request([b["b2.csv"], b["b1.csv"]]),
      inputs: [
        { role: "left", artifactIds: [a["a2.csv"], a["a1.csv"]] },
        { role: "right", artifactIds: [b["b2.csv"], b["b1.csv"]] },
      ],
    });
    expect(crossed.specId).not.toBe(straight.specId);
    expect(again.specId).toBe(straight.specId);
    expect(samePairs.specId).toBe(straight.specId);
    expect(await edgesOf(straight.runId)).toEqual([
      ["a1.csv", "a1_d.csv", "CO_INPUT"],
      ["b1.csv", "a1_d.csv", "CO_INPUT"],
    ]);
    expect(await edgesOf(crossed.runId)).toEqual([
      ["a1.csv", "a1_d.csv", "CO_INPUT"],
      ["b2.csv", "a1_d.csv", "CO_INPUT"],
    ]);
  });

  test("without ZIP, order within a role is irrelevant; an empty role is the same request as an omitted one; a role listed twice is one role", async () => {
    const inputs = await seed("csv", ["o1.csv", "o2.csv"]);
    const request = (roles: { role: string; artifactIds: string[] }[]) => ({
      operation: "optional",
      operationVersion: "1",
      inputs: roles,
      outputs: [{ role: "result", artifacts: [draft("o1_r.csv")] }],
    });
    const [o1, o2] = [inputs["o1.csv"], inputs["o2.csv"]];
    const omitted = await recordOk(t, request([{ role: "data", artifactIds: [o1, o2] }]));
    const empty = await recordOk(t, request([{ role: "data", artifactIds: [o1, o2] }, { role: "extra", artifactIds: [] }]));
    const reordered = await recordOk(t, request([{ role: "data", artifactIds: [o2, o1] }]));
    const split = await recordOk(t, request([{ role: "data", artifactIds: [o2] }, { role: "data", artifactIds: [o1] }]));
    expect([empty.specId, reordered.specId, split.specId]).toEqual([omitted.specId, omitted.specId, omitted.specId]);
    const read = await t.gql(`query($r: ID!) { execution(runId: $r) { inputs { role position artifact { originalName } } } }`, { r: split.runId });
    expect(read.data!.execution.inputs).toEqual([
      { role: "data", position: 0, artifact: { originalName: "o2.csv" } },
      { role: "data", position: 1, artifact: { originalName: "o1.csv" } },
    ]);
  });
});

describe("rule 4: curators pass through; required output roles", () => {
  test("a curator's undeclared output that is one of its inputs is a passthrough: the same artifact, no edge", async () => {
    const inputs = await seed("csv", ["c1.csv", "c2.csv"]);
    const run = await recordOk(t, {
      operation: "select",
      operationVersion: "1",
      inputs: [{ role: "candidates", artifactIds: [inputs["c1.csv"], inputs["c2.csv"]] }],
      outputs: [{ role: "selected", artifacts: [{ originalName: "chosen.csv", contentHash: sha256Of("c2.csv") }] }],
    });
    expect(run.edgeCount).toBe(0);
    expect(run.outputs).toEqual([{ role: "selected", position: 0, artifact: { id: inputs["c2.csv"], originalName: "c2.csv", artifactType: "csv" } }]);
    expect(await edgesOf(run.runId)).toEqual([]);
  });

  test("anything else is NOT_PASSTHROUGH, naming the output and telling the caller to declare inferLineageFrom", async () => {
    const inputs = await seed("csv", ["c3.csv"]);
    const result = await expectRejected(
      { operation: "select", operationVersion: "1", inputs: [{ role: "candidates", artifactIds: [inputs["c3.csv"]] }], outputs: [{ role: "selected", artifacts: [draft("c3_filtered.csv")] }] },
      { __typename: "ArtifactValidationError", code: "ARTIFACT_VALIDATION", rule: "NOT_PASSTHROUGH", role: "selected", output: "c3_filtered.csv", candidates: [inputs["c3.csv"]] },
    );
    expect(result.message).toContain("declare inferLineageFrom");
  });

  test("a required output role (the default) must have artifacts in a COMPLETED execution; required: false may be empty", async () => {
    const inputs = await seed("csv", ["m1.csv"]);
    const split = (outputs: object[], extra: object = {}) => ({ operation: "split", operationVersion: "1", inputs: [{ role: "data", artifactIds: [inputs["m1.csv"]] }], outputs, ...extra });
    const ok = await recordOk(t, split([{ role: "main", artifacts: [draft("m1_main.csv")] }]));
    expect(await edgesOf(ok.runId)).toEqual([["m1.csv", "m1_main.csv", "INDEPENDENT"]]);
    await expectRejected(split([{ role: "extra", artifacts: [draft("m1_extra.csv")] }]), { __typename: "ArtifactValidationError", rule: "MISSING_OUTPUT_ROLE", role: "main" });
    await expectRejected(split([{ role: "main", artifacts: [] }]), { __typename: "ArtifactValidationError", rule: "MISSING_OUTPUT_ROLE", role: "main" });
    const failed = await recordOk(t, split([], { status: "FAILED" }));
    expect([failed.status, failed.outputs]).toEqual(["FAILED", []]);
    const declared = await t.gql(`{ operation(name: "split", version: "1") { outputs { role required } } }`);
    expect(declared.data!.operation.outputs).toEqual([
      { role: "main", required: true },
      { role: "extra", required: false },
    ]);
  });
});

describe("rule 5: a creator never derives an artifact from itself", () => {
  test("an output with the same content-addressed id as its stem-matched source is SELF_DERIVATION", async () => {
    const inputs = await seed("csv", ["same.csv"]);
    const result = await expectRejected(transformOf([inputs["same.csv"]], [{ originalName: "same_copy.csv", contentHash: sha256Of("same.csv") }]), {
      __typename: "LineageIntegrityError",
      code: "LINEAGE_INTEGRITY",
      rule: "SELF_DERIVATION",
      role: "result",
      output: "same_copy.csv",
      candidates: [inputs["same.csv"]],
    });
    expect(result.message).toContain("curator");
  });

  const trio = (input: string, lineage: object[]) => ({
    operation: "trio",
    operationVersion: "1",
    inputs: [{ role: "data", artifactIds: [input] }],
    outputs: [
      { role: "x", artifacts: [draft("x1.csv")] },
      { role: "y", artifacts: [draft("y1.csv")] },
      { role: "z", artifacts: [draft("z1.csv")] },
    ],
    lineage,
  });

  test.each([
    ["two", [{ output: "x1.csv", sources: ["y1.csv"] }, { output: "y1.csv", sources: ["x1.csv"] }, { output: "z1.csv", sources: ["INPUT"] }], ["x1.csv", "y1.csv"]],
    ["three", [{ output: "x1.csv", sources: ["y1.csv"] }, { output: "y1.csv", sources: ["z1.csv"] }, { output: "z1.csv", sources: ["x1.csv"] }], ["x1.csv", "y1.csv", "z1.csv"]],
  ])("explicit output-to-output references in a cycle of %s are OUTPUT_CYCLE", async (_length, lineage, cycle) => {
    const inputs = await seed("csv", ["d1.csv"]);
    const resolved = lineage.map((entry) => ({ ...entry, sources: entry.sources.map((s) => (s === "INPUT" ? inputs["d1.csv"] : s)) }));
    await expectRejected(trio(inputs["d1.csv"], resolved), { __typename: "LineageIntegrityError", rule: "OUTPUT_CYCLE", output: "x1.csv", outputs: cycle });
  });

  test("an explicit mapping closing a loop with a stem-inferred output-to-output edge is OUTPUT_CYCLE too", async () => {
    const inputs = await seed("csv", ["f1.csv"]);
    await expectRejected(
      {
        operation: "fold",
        operationVersion: "1",
        inputs: [{ role: "sequence", artifactIds: [inputs["f1.csv"]] }],
        outputs: [
          { role: "structure", artifacts: [draft("f1_model.pdb")] },
          { role: "metric", artifacts: [draft("f1_model_score.json")] },
        ],
        lineage: [{ output: "f1_model.pdb", sources: ["f1_model_score.json"] }],
      },
      { __typename: "LineageIntegrityError", rule: "OUTPUT_CYCLE", outputs: ["f1_model.pdb", "f1_model_score.json"] },
    );
  });

  test("a chain of output-to-output references without a loop is recorded", async () => {
    const inputs = await seed("csv", ["d2.csv"]);
    const run = await recordOk(t, trio(inputs["d2.csv"], [{ output: "x1.csv", sources: ["y1.csv"] }, { output: "y1.csv", sources: ["z1.csv"] }, { output: "z1.csv", sources: [inputs["d2.csv"]] }]));
    expect(await edgesOf(run.runId)).toEqual([
      ["y1.csv", "x1.csv", "OUTPUT_TO_OUTPUT"],
      ["z1.csv", "y1.csv", "OUTPUT_TO_OUTPUT"],
      ["d2.csv", "z1.csv", "INDEPENDENT"],
    ]);
  });
});

describe("rule 6: config references", () => {
  const ARTIFACT = `query($id: ID!) { artifact(id: $id) { originalName configReferences { originalName } referencedByConfigs { originalName } referencedByExecutions { runId } } }`;

  test('{"$artifact": id} in an output\'s metadata, at any depth, is a CONFIG_REFERENCE edge from the referenced artifact into that output', async () => {
    const stored = await seed("bin", ["model.bin", "weights.bin"]);
    const readme = artifactIdFor("txt", sha256Of("readme.txt"));
    const run = await recordOk(t, {
      operation: "write-config",
      operationVersion: "1",
      inputs: [],
      outputs: [
        {
          role: "config",
          artifacts: [
            {
              ...draft("train.json"),
              metadata: { model: { $artifact: stored["model.bin"] }, layers: [{ init: { $artifact: stored["weights.bin"] } }, { init: { $artifact: stored["weights.bin"] } }], docs: { $artifact: readme } },
            },
          ],
        },
        { role: "notes", artifacts: [draft("readme.txt")] },
      ],
    });
    const edges = await groupedEdgesOf(run.runId);
    expect(edges.map(([source, target, kind]) => [source, target, kind]).sort()).toEqual([
      ["model.bin", "train.json", "CONFIG_REFERENCE"],
      ["readme.txt", "train.json", "CONFIG_REFERENCE"],
      ["weights.bin", "train.json", "CONFIG_REFERENCE"],
    ]);
    expect(new Set(edges.map((e) => e[3])).size).toBe(3);
    const model = (await t.gql(ARTIFACT, { id: stored["model.bin"] })).data!.artifact;
    expect(model).toEqual({ originalName: "model.bin", configReferences: [], referencedByConfigs: [{ originalName: "train.json" }], referencedByExecutions: [] });
    const config = (await t.gql(ARTIFACT, { id: run.outputIds["train.json"] })).data!.artifact;
    expect(config.configReferences.map((a: { originalName: string }) => a.originalName).sort()).toEqual(["model.bin", "readme.txt", "weights.bin"]);
    expect(config.referencedByConfigs).toEqual([]);
  });

  test("a reference inside params is an artifact the execution used (role $config, PROV used), not an edge into every output", async () => {
    const stored = await seed("bin", ["lookup.bin"]);
    const data = await seed("csv", ["k1.csv"]);
    const run = await recordOk(t, { ...transformOf([data["k1.csv"]], ["k1_scored.csv"]), params: { lookup: { table: { $artifact: stored["lookup.bin"] } } }, agent: "scorer" });
    expect(await edgesOf(run.runId)).toEqual([["k1.csv", "k1_scored.csv", "INDEPENDENT"]]);
    expect((await t.gql(ARTIFACT, { id: stored["lookup.bin"] })).data!.artifact).toEqual({
      originalName: "lookup.bin",
      configReferences: [],
      referencedByConfigs: [],
      referencedByExecutions: [{ runId: run.runId }],
    });
    const prov = (await t.gql(`query($id: ID!) { provJson(artifactId: $id, direction: DOWNSTREAM) }`, { id: stored["lookup.bin"] })).data!.provJson;
    expect(Object.values(prov.used)).toEqual([{ "prov:activity": `provgraph:${run.runId}`, "prov:entity": `provgraph:${stored["lookup.bin"]}`, "prov:role": "$config" }]);
  });

  test.each([
    ["an unknown artifact", "art_1111111111111111111111111111111111111111"],
    ["a malformed id", "model.bin"],
  ])("a metadata reference to %s is UNKNOWN_CONFIG_REFERENCE naming the output", async (_name, reference) => {
    await expectRejected(
      { operation: "write-config", operationVersion: "1", inputs: [], outputs: [{ role: "config", artifacts: [{ ...draft("bad.json"), metadata: { m: { $artifact: reference } } }] }] },
      { __typename: "LineageIntegrityError", rule: "UNKNOWN_CONFIG_REFERENCE", role: "config", output: "bad.json", candidates: [reference] },
    );
  });

  test("a config that references itself is SELF_DERIVATION", async () => {
    const self = artifactIdFor("json", sha256Of("self.json"));
    await expectRejected(
      { operation: "write-config", operationVersion: "1", inputs: [], outputs: [{ role: "config", artifacts: [{ ...draft("self.json"), metadata: { me: { $artifact: self } } }] }] },
      { __typename: "LineageIntegrityError", rule: "SELF_DERIVATION", output: "self.json" },
    );
  });

  test("role names starting with $ are reserved", async () => {
    const result = await registerOperation(t, { name: "sneaky", version: "1", kind: "CREATOR", inputs: [{ role: "$config", artifactType: "json" }], outputs: [generative("o", "csv")] });
    expect(result).toMatchObject({ __typename: "OperationDeclarationError", rule: "RESERVED_ROLE", role: "$config" });
  });
});

describe("rule 7: several independent parents by explicit mapping", () => {
  test("kind INDEPENDENT gives one edge per source, each its own derivation; JOINT (the default) one joint derivation", async () => {
    const inputs = await seed("csv", ["i1.csv", "i2.csv"]);
    const [i1, i2] = [inputs["i1.csv"], inputs["i2.csv"]];
    const independent = await recordOk(t, transformOf([i1, i2], ["merged_any.csv"], { lineage: [{ output: "merged_any.csv", sources: [i1, i2], kind: "INDEPENDENT" }] }));
    const joint = await recordOk(t, transformOf([i1, i2], ["merged_all.csv"], { lineage: [{ output: "merged_all.csv", sources: [i1, i2] }] }));
    const independentEdges = await groupedEdgesOf(independent.runId);
    expect(independentEdges.map(([source, target, kind]) => [source, target, kind])).toEqual([
      ["i1.csv", "merged_any.csv", "INDEPENDENT"],
      ["i2.csv", "merged_any.csv", "INDEPENDENT"],
    ]);
    expect(independentEdges[0][3]).not.toBe(independentEdges[1][3]);
    const jointEdges = await groupedEdgesOf(joint.runId);
    expect(jointEdges.map(([source, target, kind]) => [source, target, kind])).toEqual([
      ["i1.csv", "merged_all.csv", "CO_INPUT"],
      ["i2.csv", "merged_all.csv", "CO_INPUT"],
    ]);
    expect(jointEdges[0][3]).toBe(jointEdges[1][3]);
    const derivations = async (id: string) =>
      (await t.gql(`query($id: ID!) { artifact(id: $id) { derivations { kind sources { originalName } } } }`, { id })).data!.artifact.derivations.map((d: { kind: string; sources: { originalName: string }[] }) => [
        d.kind,
        d.sources.map((s) => s.originalName).sort(),
      ]);
    expect((await derivations(independent.outputIds["merged_any.csv"])).sort()).toEqual([
      ["INDEPENDENT", ["i1.csv"]],
      ["INDEPENDENT", ["i2.csv"]],
    ]);
    expect(await derivations(joint.outputIds["merged_all.csv"])).toEqual([["CO_INPUT", ["i1.csv", "i2.csv"]]]);
  });

  test("INDEPENDENT with an output among its sources: that edge is OUTPUT_TO_OUTPUT", async () => {
    const inputs = await seed("csv", ["d3.csv"]);
    const d3 = inputs["d3.csv"];
    const run = await recordOk(t, {
      operation: "trio",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: [d3] }],
      outputs: [
        { role: "x", artifacts: [draft("x3.csv")] },
        { role: "y", artifacts: [draft("y3.csv")] },
      ],
      lineage: [
        { output: "x3.csv", sources: [d3, "y3.csv"], kind: "INDEPENDENT" },
        { output: "y3.csv", sources: [d3] },
      ],
    });
    expect(await edgesOf(run.runId)).toEqual([
      ["d3.csv", "x3.csv", "INDEPENDENT"],
      ["y3.csv", "x3.csv", "OUTPUT_TO_OUTPUT"],
      ["d3.csv", "y3.csv", "INDEPENDENT"],
    ]);
  });

  test.each([
    ["JOINT", (a: string) => [a, a]],
    ["INDEPENDENT", (a: string) => [a, a]],
  ])("the same source twice in one %s mapping is DUPLICATE_SOURCE", async (kind, sources) => {
    const inputs = await seed("csv", ["dup.csv"]);
    await expectRejected(transformOf([inputs["dup.csv"]], ["dup_out.csv"], { lineage: [{ output: "dup_out.csv", sources: sources(inputs["dup.csv"]), kind }] }), {
      __typename: "LineageIntegrityError",
      rule: "DUPLICATE_SOURCE",
      role: "result",
      output: "dup_out.csv",
      candidates: [inputs["dup.csv"]],
    });
  });

  test("an output named once by name and once by id is the same source twice", async () => {
    const inputs = await seed("csv", ["d4.csv"]);
    const y = artifactIdFor("csv", sha256Of("y4.csv"));
    await expectRejected(
      {
        operation: "trio",
        operationVersion: "1",
        inputs: [{ role: "data", artifactIds: [inputs["d4.csv"]] }],
        outputs: [
          { role: "x", artifacts: [draft("x4.csv")] },
          { role: "y", artifacts: [draft("y4.csv")] },
        ],
        lineage: [
          { output: "x4.csv", sources: ["y4.csv", y] },
          { output: "y4.csv", sources: [inputs["d4.csv"]] },
        ],
      },
      { __typename: "LineageIntegrityError", rule: "DUPLICATE_SOURCE", output: "x4.csv", candidates: [y] },
    );
  });

  test("two mappings for one output are still DUPLICATE_MAPPING, INDEPENDENT or not", async () => {
    const inputs = await seed("csv", ["e1.csv", "e2.csv"]);
    const [e1, e2] = [inputs["e1.csv"], inputs["e2.csv"]];
    await expectRejected(
      transformOf([e1, e2], ["e_out.csv"], {
        lineage: [
          { output: "e_out.csv", sources: [e1, e2], kind: "INDEPENDENT" },
          { output: "e_out.csv", sources: [e1] },
        ],
      }),
      { __typename: "LineageIntegrityError", rule: "DUPLICATE_MAPPING", output: "e_out.csv" },
    );
  });
});

describe("rule 9: contentHash has a documented format; unsafe strings are refused", () => {
  const one = (contentHash: string, name = "h.csv") => ({ operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "csv", artifacts: [{ originalName: name, contentHash }] }] });

  test.each([
    ["sha256, upper case", `SHA256:${"AB".repeat(32)}`, `sha256:${"ab".repeat(32)}`],
    ["sha512", `sha512:${"1".repeat(128)}`, `sha512:${"1".repeat(128)}`],
    ["sha384", `sha384:${"2".repeat(96)}`, `sha384:${"2".repeat(96)}`],
    ["sha1", `sha1:${"3".repeat(40)}`, `sha1:${"3".repeat(40)}`],
    ["md5", `md5:${"4".repeat(32)}`, `md5:${"4".repeat(32)}`],
    ["blake3", `blake3:${"5".repeat(64)}`, `blake3:${"5".repeat(64)}`],
    ["git (SHA-1)", `git:${"6".repeat(40)}`, `git:${"6".repeat(40)}`],
    ["git (SHA-256)", `git:${"7".repeat(64)}`, `git:${"7".repeat(64)}`],
    ["an S3 multipart etag, quotes and all", 'etag:"5d41402abc4b2a76b9719d911017c592-3"', 'etag:"5d41402abc4b2a76b9719d911017c592-3"'],
  ])("%s is accepted and stored in canonical spelling", async (_name, given, stored) => {
    const run = await recordOk(t, one(given, `${stored.slice(0, 12)}.csv`));
    const read = await t.gql(`query($id: ID!) { artifact(id: $id) { contentHash } }`, { id: run.outputs[0].artifact.id });
    expect(read.data!.artifact.contentHash).toBe(stored);
    expect(run.outputs[0].artifact.id).toBe(artifactIdFor("csv", stored));
  });

  test("one content, one artifact: the upper- and lower-case spellings of a digest are the same artifact", async () => {
    const lower = await recordOk(t, one(`sha256:${"cd".repeat(32)}`, "lower.csv"));
    const upper = await recordOk(t, one(`sha256:${"CD".repeat(32)}`, "upper.csv"));
    expect(upper.outputs[0].artifact.id).toBe(lower.outputs[0].artifact.id);
  });

  test("the documentation's placeholder sha256:… is refused with a message that says what is expected", async () => {
    const error = await expectGraphQLError(one("sha256:…"), "INVALID_CONTENT_HASH", "outputs[0].artifacts[0].contentHash");
    expect(error.message).toBe(
      "outputs[0].artifacts[0].contentHash: 'sha256:…' is not a content hash: a sha256 digest is 64 hexadecimal digits (0-9, a-f); '…' is not hexadecimal. " +
        "Expected <algorithm>:<digest> — sha256:<64 hex digits>, sha512:<128>, sha384:<96>, sha1:<40>, md5:<32>, blake3:<64>, git:<40 or 64>, or etag:<1–256 visible ASCII characters>",
    );
  });

  test.each([
    ["a short digest", "sha256:abc", "a sha256 digest is 64 hexadecimal digits (0-9, a-f), got 3"],
    ["an md5 of sha256 length", `md5:${"a".repeat(64)}`, "a md5 digest is 32 hexadecimal digits (0-9, a-f), got 64"],
    ["an unsupported algorithm", "crc32:cbf43926", "'crc32' is not a supported algorithm"],
    ["no algorithm", "d41d8cd98f00b204e9800998ecf8427e", "it has no '<algorithm>:' prefix"],
    ["blank", " ", "it has no '<algorithm>:' prefix"],
    ["an empty digest", "sha1:", "a sha1 digest is 40 hexadecimal digits (0-9, a-f); it is empty"],
    ["an empty etag", "etag:", "an etag is 1–256 visible ASCII characters (no spaces or control characters)"],
    ["an etag with a space", "etag:a b", "an etag is 1–256 visible ASCII characters (no spaces or control characters)"],
    ["an etag with a lone surrogate", "etag:x\ud800", "an etag is 1–256 visible ASCII characters (no spaces or control characters)"],
  ])("%s is INVALID_CONTENT_HASH", async (_name, contentHash, reason) => {
    const error = await expectGraphQLError(one(contentHash), "INVALID_CONTENT_HASH", "outputs[0].artifacts[0].contentHash");
    expect(error.extensions!.reason).toBe(reason);
    expect(error.message).toContain(`: ${reason}. Expected <algorithm>:<digest>`);
  });

  test("two hashes that differ only in a lone surrogate no longer collapse into one artifact: both are refused", async () => {
    for (const surrogate of ["\ud800", "\ud801"]) await expectGraphQLError(one(`etag:x${surrogate}`, "lone.csv"), "INVALID_CONTENT_HASH", "outputs[0].artifacts[0].contentHash");
  });

  test.each([
    ["a lone surrogate in an output name", { outputs: [{ role: "csv", artifacts: [{ originalName: "a\udc00.csv", contentHash: sha256Of("a") }] }] }, "outputs[0].artifacts[0].originalName", "contains a lone surrogate (U+DC00) at index 1, which is not valid Unicode"],
    ["a control character in an output name", { outputs: [{ role: "csv", artifacts: [{ originalName: "a\tb.csv", contentHash: sha256Of("a") }] }] }, "outputs[0].artifacts[0].originalName", "contains the control character U+0009 at index 1"],
    ["a NUL in a role", { outputs: [{ role: "c\u0000sv", artifacts: [draft("n.csv")] }] }, "outputs[0].role", "contains the control character U+0000 at index 1"],
    ["a lone surrogate in the agent", { agent: "bot\ud83d" }, "agent", "contains a lone surrogate (U+D83D) at index 3, which is not valid Unicode"],
    ["a control character in the pipeline", { pipeline: "p\u0085", step: 0 }, "pipeline", "contains the control character U+0085 at index 1"],
    ["a lone surrogate in the operation name", { operation: "generate\udfff" }, "operation", "contains a lone surrogate (U+DFFF) at index 8, which is not valid Unicode"],
  ])("%s is INVALID_ARGUMENT", async (_name, change, field, reason) => {
    const error = await expectGraphQLError({ ...one(sha256Of("ok"), "ok.csv"), ...change }, "INVALID_ARGUMENT", field);
    expect(error.extensions!.reason).toBe(reason);
  });

  test("a well-formed surrogate pair (an emoji) is fine", async () => {
    const run = await recordOk(t, { ...one(sha256Of("emoji"), "🧪 result.csv"), agent: "bot 🤖" });
    expect(run.outputs[0].artifact.originalName).toBe("🧪 result.csv");
  });

  test.each([
    ["the operation name", { name: "op\ud800" }, "INVALID_CHARACTERS", null],
    ["a role", { outputs: [generative("ro\u001ble", "csv")] }, "INVALID_CHARACTERS", null],
    ["an artifact type", { outputs: [generative("role", "cs\u007fv")] }, "INVALID_CHARACTERS", "role"],
  ])("unsafe characters in %s of a declaration are refused", async (_name, change, rule, role) => {
    const before = await tableCounts(t);
    const result = await registerOperation(t, { name: "unsafe", version: "1", kind: "CREATOR", inputs: [], outputs: [generative("out", "csv")], ...change });
    expect(result).toMatchObject({ __typename: "OperationDeclarationError", rule, role });
    expect(await tableCounts(t)).toEqual(before);
  });
});
