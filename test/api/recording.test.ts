import { createTestApp, errorCodes, type TestApp } from "../support/test-app";
import { draft, edgesByName, generator, recordExecution, recordOk, registerOperation, sha256Of, tableCounts, transform } from "../support/recording";


const compare = {
  name: "compare",
  version: "1",
  kind: "CREATOR",
  groupBy: "ZIP",
  inputs: [
    { role: "left", artifactType: "csv" },
    { role: "right", artifactType: "csv" },
  ],
  outputs: [{ role: "diff", artifactType: "csv", inferLineageFrom: { inputs: ["left"] } }],
};

describe("recording executions through GraphQL", () => {
  let t: TestApp;
  let samples: Record<string, string>;

  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generator);
    await registerOperation(t, transform);
    const generated = await recordOk(t, {
      operation: "generate",
      operationVersion: "1",
      inputs: [],
      outputs: [{ role: "sample", artifacts: [draft("sample_001.csv"), draft("sample_002.csv"), draft("design_1.csv"), draft("design_10.csv")] }],
    });
    samples = generated.outputIds;
  });
  afterAll(() => t.close());

  test("a generative creator records orphans: outputs, no edges", async () => {
    expect(Object.keys(samples).sort()).toEqual(["design_1.csv", "design_10.csv", "sample_001.csv", "sample_002.csv"]);
    expect(await edgesByName(t)).toEqual([]);
  });

  test("a transform gets one independent edge per output, by stem (design_1 never matches design_10)", async () => {
    const run = await recordOk(t, {
      operation: "transform",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: Object.values(samples) }],
      outputs: [{ role: "result", artifacts: [draft("sample_001_transformed.csv"), draft("sample_002.tar.gz"), draft("design_1_clean.csv"), draft("design_10_clean.csv")] }],
    });
    expect(run.edgeCount).toBe(4);
    const edges = (await edgesByName(t)).filter((e) => e.runId === run.runId);
    expect(edges.map((e) => [e.source, e.target, e.kind, e.stepBoundary, e.sourceType, e.targetType])).toEqual([
      ["design_10.csv", "design_10_clean.csv", "INDEPENDENT", true, "csv", "csv"],
      ["design_1.csv", "design_1_clean.csv", "INDEPENDENT", true, "csv", "csv"],
      ["sample_001.csv", "sample_001_transformed.csv", "INDEPENDENT", true, "csv", "csv"],
      ["sample_002.csv", "sample_002.tar.gz", "INDEPENDENT", true, "csv", "csv"],
    ]);
    expect(new Set(edges.map((e) => e.groupId)).size).toBe(4);
  });

  test("output-to-output: a metric derives from the structure output it summarises", async () => {
    await registerOperation(t, {
      name: "fold",
      version: "1",
      kind: "CREATOR",
      inputs: [{ role: "sequence", artifactType: "csv" }],
      outputs: [
        { role: "structure", artifactType: "pdb", inferLineageFrom: { inputs: ["sequence"] } },
        { role: "metric", artifactType: "json", inferLineageFrom: { outputs: ["structure"] } },
      ],
    });
    const run = await recordOk(t, {
      operation: "fold",
      operationVersion: "1",
      inputs: [{ role: "sequence", artifactIds: [samples["sample_001.csv"], samples["sample_002.csv"]] }],
      outputs: [
        { role: "structure", artifacts: [draft("sample_001_model.pdb"), draft("sample_002_model.pdb")] },
        { role: "metric", artifacts: [draft("sample_001_model_score.json"), draft("sample_002_model_score.json")] },
      ],
    });
    const edges = (await edgesByName(t)).filter((e) => e.runId === run.runId);
    expect(edges.map((e) => [e.source, e.target, e.kind, e.sourceType, e.targetType])).toEqual([
      ["sample_001.csv", "sample_001_model.pdb", "INDEPENDENT", "csv", "pdb"],
      ["sample_001_model.pdb", "sample_001_model_score.json", "OUTPUT_TO_OUTPUT", "pdb", "json"],
      ["sample_002.csv", "sample_002_model.pdb", "INDEPENDENT", "csv", "pdb"],
      ["sample_002_model.pdb", "sample_002_model_score.json", "OUTPUT_TO_OUTPUT", "pdb", "json"],
    ]);
  });

  test("an explicit mapping bypasses stem inference", async () => {
    const run = await recordOk(t, {
      operation: "transform",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: [samples["sample_001.csv"], samples["sample_002.csv"]] }],
      outputs: [{ role: "result", artifacts: [draft("renamed_a.csv"), draft("sample_001_x.csv")] }],
      // sample_001_x would stem-match sample_001; the explicit mapping says otherwise.
      lineage: [
        { output: "renamed_a.csv", sources: [samples["sample_001.csv"]] },
        { output: "sample_001_x.csv", sources: [samples["sample_002.csv"]] },
      ],
    });
    const edges = (await edgesByName(t)).filter((e) => e.runId === run.runId);
    expect(edges.map((e) => [e.source, e.target, e.kind])).toEqual([
      ["sample_001.csv", "renamed_a.csv", "INDEPENDENT"],
      ["sample_002.csv", "sample_001_x.csv", "INDEPENDENT"],
    ]);
  });

  test("co-input pairs (groupBy ZIP) share one groupId, the same across runs with the same inputs", async () => {
    await registerOperation(t, compare);
    const request = {
      operation: "compare",
      operationVersion: "1",
      inputs: [
        { role: "left", artifactIds: [samples["sample_001.csv"], samples["sample_002.csv"]] },
        { role: "right", artifactIds: [samples["design_1.csv"], samples["design_10.csv"]] },
      ],
      outputs: [{ role: "diff", artifacts: [draft("sample_001_vs.csv"), draft("sample_002_vs.csv")] }],
    };
    const first = await recordOk(t, request);
    const second = await recordOk(t, request);
    const edgesOf = async (runId: string) => (await edgesByName(t)).filter((e) => e.runId === runId);
    const firstEdges = await edgesOf(first.runId);
    expect(firstEdges.map((e) => [e.source, e.target, e.kind])).toEqual([
      ["design_1.csv", "sample_001_vs.csv", "CO_INPUT"],
      ["sample_001.csv", "sample_001_vs.csv", "CO_INPUT"],
      ["design_10.csv", "sample_002_vs.csv", "CO_INPUT"],
      ["sample_002.csv", "sample_002_vs.csv", "CO_INPUT"],
    ]);
    expect(firstEdges[0].groupId).toBe(firstEdges[1].groupId);
    expect(firstEdges[2].groupId).toBe(firstEdges[3].groupId);
    expect(firstEdges[0].groupId).not.toBe(firstEdges[2].groupId);
    expect((await edgesOf(second.runId)).map((e) => e.groupId)).toEqual(firstEdges.map((e) => e.groupId));
  });

  test('a config reference ({"$artifact": id} in params) is an input in role $config, not an edge into the outputs', async () => {
    const run = await recordOk(t, {
      operation: "transform",
      operationVersion: "1",
      params: { model: { weights: { $artifact: samples["design_1.csv"] } }, threshold: 0.5 },
      inputs: [{ role: "data", artifactIds: [samples["sample_001.csv"]] }],
      outputs: [{ role: "result", artifacts: [draft("sample_001_scored.csv")] }],
    });
    const edges = (await edgesByName(t)).filter((e) => e.runId === run.runId);
    expect(edges.map((e) => [e.source, e.target, e.kind])).toEqual([["sample_001.csv", "sample_001_scored.csv", "INDEPENDENT"]]);
    const read = await t.gql(`query($r: ID!) { execution(runId: $r) { inputs { role position artifact { originalName } } } }`, { r: run.runId });
    expect(read.data!.execution.inputs).toEqual([
      { role: "$config", position: 0, artifact: { originalName: "design_1.csv" } },
      { role: "data", position: 0, artifact: { originalName: "sample_001.csv" } },
    ]);
  });

  test("re-recording the same request gives a new runId and the same specId (key order irrelevant)", async () => {
    const base = {
      operation: "transform",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: [samples["sample_002.csv"], samples["sample_001.csv"]] }],
      outputs: [{ role: "result", artifacts: [draft("sample_001_again.csv"), draft("sample_002_again.csv")] }],
    };
    const first = await recordOk(t, { ...base, params: { a: 1, b: { c: 2, d: 3 } } });
    const second = await recordOk(t, {
      ...base,
      params: { b: { d: 3, c: 2 }, a: 1 },
      inputs: [{ role: "data", artifactIds: [samples["sample_001.csv"], samples["sample_002.csv"]] }],
    });
    expect(second.runId).not.toBe(first.runId);
    expect(second.specId).toBe(first.specId);
    expect(second.runId > first.runId).toBe(true);
    const other = await recordOk(t, { ...base, params: { a: 2, b: { c: 2, d: 3 } } });
    expect(other.specId).not.toBe(first.specId);
    const attempts = await t.gql(`query($s: ID!) { executionsBySpec(specId: $s) { runId } }`, { s: first.specId });
    expect(attempts.data!.executionsBySpec).toEqual([{ runId: first.runId }, { runId: second.runId }]);
    // Same content = same artifact id: recording it again keeps the one artifact.
    expect(second.outputIds).toEqual(first.outputIds);
  });

  test("the response is answered from what was recorded: selecting outputs and their artifacts costs no statement", async () => {
    const request = (name: string) => ({
      operation: "transform",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: [samples["sample_001.csv"]] }],
      outputs: [{ role: "result", artifacts: [draft(name)] }],
    });
    const statements = async (query: string, input: object) => {
      const before = t.app.database.statementCount();
      const res = await t.gql(query, { input });
      expect(res.errors).toBeUndefined();
      return { count: t.app.database.statementCount() - before, result: res.data!.recordExecution };
    };
    await statements(`mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename } }`, request("sample_001_p0.csv")); // operation now cached
    const minimal = await statements(`mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename } }`, request("sample_001_p1.csv"));
    const full = await statements(
      `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { ... on RecordExecutionPayload { execution { runId status inputs { role artifact { id originalName } } outputs { role artifact { id originalName contentHash } } } } } }`,
      request("sample_001_p2.csv"),
    );
    expect(full.count).toBe(minimal.count);
    expect(full.result.execution.outputs).toEqual([{ role: "result", artifact: { id: expect.stringMatching(/^art_/), originalName: "sample_001_p2.csv", contentHash: draft("sample_001_p2.csv").contentHash } }]);
    expect(full.result.execution.inputs).toEqual([{ role: "data", artifact: { id: samples["sample_001.csv"], originalName: "sample_001.csv" } }]);
  });

  test("content recorded again under another name keeps its artifact, and the response shows it as stored", async () => {
    const first = await recordOk(t, {
      operation: "transform",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: [samples["sample_002.csv"]] }],
      outputs: [{ role: "result", artifacts: [{ originalName: "sample_002_v1.csv", contentHash: sha256Of("same-bytes") }] }],
    });
    const again = await recordExecution(t, {
      operation: "transform",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: [samples["sample_002.csv"]] }],
      outputs: [{ role: "result", artifacts: [{ originalName: "sample_002_v2.csv", contentHash: sha256Of("same-bytes") }] }],
    });
    expect(again.execution.outputs).toEqual([
      { role: "result", position: 0, artifact: { id: first.outputIds["sample_002_v1.csv"], originalName: "sample_002_v1.csv", artifactType: "csv" } },
    ]);
  });

  test("pipeline and step are recorded in the steps table, with the data flow between steps", async () => {
    const produced = await recordOk(t, {
      operation: "generate",
      operationVersion: "1",
      pipeline: "demo",
      step: 0,
      inputs: [],
      outputs: [{ role: "sample", artifacts: [draft("p_1.csv")] }],
    });
    await recordOk(t, {
      operation: "transform",
      operationVersion: "1",
      pipeline: "demo",
      step: 1,
      inputs: [{ role: "data", artifactIds: [produced.outputIds["p_1.csv"]] }],
      outputs: [{ role: "result", artifacts: [draft("p_1_t.csv")] }],
    });
    const db = t.app.database.prisma;
    const steps = await db.pipelineStep.findMany({ where: { pipeline: "demo" }, orderBy: { step: "asc" }, include: { operation: { select: { name: true } } } });
    expect(steps.map((s) => [s.step, s.operation.name, JSON.parse(s.inputRoles), JSON.parse(s.outputRoles)])).toEqual([
      [0, "generate", [], [{ role: "sample", artifactType: "csv" }]],
      [1, "transform", [{ role: "data", artifactType: "csv" }], [{ role: "result", artifactType: "csv" }]],
    ]);
    const flows = await db.pipelineFlow.findMany({ where: { pipeline: "demo" } });
    expect(flows.map((f) => [f.step, f.inputRole, f.sourceStep, f.sourceRole])).toEqual([[1, "data", 0, "sample"]]);
    const conflict = await t.gql(
      `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename } }`,
      { input: { operation: "generate", operationVersion: "1", pipeline: "demo", step: 1, inputs: [], outputs: [{ role: "sample", artifacts: [draft("p_9.csv")] }] } },
    );
    expect(errorCodes(conflict)).toEqual(["STEP_CONFLICT"]);
  });
});

describe("operations are validated at registration", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const base = { name: "op", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }] };
  test.each([
    ["a creator output without inferLineageFrom", { outputs: [{ role: "out", artifactType: "csv" }] }, "LINEAGE_DECLARATION_REQUIRED", "out"],
    ["inputs and outputs in one declaration", { outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["data"], outputs: ["x"] } }] }, "COMBINED_LINEAGE_SOURCES", "out"],
    ["an unknown input role", { outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["nope"] } }] }, "UNKNOWN_ROLE", "out"],
    ["an output deriving from itself", { outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { outputs: ["out"] } }] }, "SELF_DERIVATION", "out"],
    [
      "outputs deriving from each other",
      { outputs: [{ role: "a", artifactType: "csv", inferLineageFrom: { outputs: ["b"] } }, { role: "b", artifactType: "csv", inferLineageFrom: { outputs: ["a"] } }] },
      "OUTPUT_CYCLE",
      "a",
    ],
    ["a duplicated role", { outputs: [{ role: "o", artifactType: "csv", inferLineageFrom: { inputs: [] } }, { role: "o", artifactType: "csv", inferLineageFrom: { inputs: [] } }] }, "DUPLICATE_ROLE", "o"],
    ["ZIP with one input role", { groupBy: "ZIP", outputs: [{ role: "o", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] }, "GROUP_BY_NEEDS_ROLES", null],
  ])("%s is an OperationDeclarationError", async (_name, declaration, rule, role) => {
    const result = await registerOperation(t, { ...base, ...declaration });
    expect(result).toMatchObject({ __typename: "OperationDeclarationError", code: "OPERATION_DECLARATION", rule, role });
    expect(await t.app.database.prisma.operation.count()).toBe(0);
  });

  test("a curator may omit inferLineageFrom (passthrough)", async () => {
    const result = await registerOperation(t, { name: "filter", version: "1", kind: "CURATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "kept", artifactType: "csv" }] });
    expect(result).toMatchObject({ __typename: "Operation", kind: "CURATOR" });
  });

  test("name+version is immutable: the same declaration is idempotent, a different one an error", async () => {
    const declaration = { ...base, name: "stable", outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] };
    const first = await registerOperation(t, declaration);
    const again = await registerOperation(t, declaration);
    expect(again).toEqual(first);
    const changed = await registerOperation(t, { ...declaration, outputs: [{ role: "out", artifactType: "parquet", inferLineageFrom: { inputs: ["data"] } }] });
    expect(changed).toMatchObject({ __typename: "OperationDeclarationError", rule: "IMMUTABLE_VERSION", candidates: ["stable@1"] });
  });
});

describe("a rejected execution is a typed error and writes nothing", () => {
  let t: TestApp;
  let inputs: Record<string, string>;

  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generator);
    await registerOperation(t, transform);
    await registerOperation(t, { ...transform, name: "typed", inputs: [{ role: "data", artifactType: "parquet" }] });
    await registerOperation(t, { ...compare, name: "pair" });
    inputs = (await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: [draft("a_1.csv"), draft("a_2.csv"), draft("run_a.csv"), draft("run_a.json"), draft("b.csv")] }] })).outputIds;
  });
  afterAll(() => t.close());

  const transformOf = (ids: string[], outputs: object[], extra: object = {}) => ({
    operation: "transform",
    operationVersion: "1",
    inputs: [{ role: "data", artifactIds: ids }],
    outputs: [{ role: "result", artifacts: outputs }],
    ...extra,
  });

  type Expected = Record<string, unknown> | (() => Record<string, unknown>);
  const cases: [string, () => Record<string, unknown>, Expected][] = [
    [
      "a required input role is missing",
      () => ({ operation: "transform", operationVersion: "1", inputs: [], outputs: [{ role: "result", artifacts: [draft("x.csv")] }] }),
      { __typename: "ArtifactValidationError", code: "ARTIFACT_VALIDATION", rule: "REQUIRED_ROLE_MISSING", role: "data" },
    ],
    [
      "an input of the wrong artifact type",
      () => ({ operation: "typed", operationVersion: "1", inputs: [{ role: "data", artifactIds: [inputs["a_1.csv"]] }], outputs: [{ role: "result", artifacts: [draft("a_1_t.csv")] }] }),
      () => ({ __typename: "ArtifactValidationError", rule: "ARTIFACT_TYPE_MISMATCH", role: "data", candidates: [inputs["a_1.csv"]] }),
    ],
    [
      "an undeclared output role",
      () => ({ ...transformOf([inputs["a_1.csv"]], [draft("a_1_t.csv")]), outputs: [{ role: "result", artifacts: [draft("a_1_t.csv")] }, { role: "extra", artifacts: [draft("a_1_e.csv")] }] }),
      { __typename: "ArtifactValidationError", rule: "UNDECLARED_OUTPUT_ROLE", role: "extra", output: "a_1_e.csv", candidates: ["result"] },
    ],
    [
      "an undeclared input role",
      () => ({ ...transformOf([inputs["a_1.csv"]], [draft("a_1_t.csv")]), inputs: [{ role: "data", artifactIds: [inputs["a_1.csv"]] }, { role: "other", artifactIds: [inputs["b.csv"]] }] }),
      { __typename: "ArtifactValidationError", rule: "UNDECLARED_INPUT_ROLE", role: "other", candidates: ["data"] },
    ],
    [
      "ZIP roles of different lengths",
      () => ({ operation: "pair", operationVersion: "1", inputs: [{ role: "left", artifactIds: [inputs["a_1.csv"], inputs["a_2.csv"]] }, { role: "right", artifactIds: [inputs["b.csv"]] }], outputs: [{ role: "diff", artifacts: [draft("a_1_d.csv")] }] }),
      { __typename: "ArtifactValidationError", rule: "ZIP_LENGTH_MISMATCH", role: "right" },
    ],
    [
      "an output with no stem match (names every unmapped output and the candidates)",
      () => transformOf([inputs["a_1.csv"], inputs["a_2.csv"]], [draft("a_1_t.csv"), draft("zebra.csv"), draft("yak.csv")]),
      { __typename: "LineageCompletenessError", code: "LINEAGE_COMPLETENESS", rule: "NO_LINEAGE_MAPPING", role: "result", output: "zebra.csv", outputs: ["zebra.csv", "yak.csv"], candidates: ["a_1.csv", "a_2.csv"] },
    ],
    [
      "an output whose only stem level is ambiguous",
      () => transformOf([inputs["run_a.csv"], inputs["run_a.json"]], [draft("run_a_x.csv")]),
      { __typename: "LineageCompletenessError", rule: "NO_LINEAGE_MAPPING", outputs: ["run_a_x.csv"], candidates: ["run_a.csv", "run_a.json"] },
    ],
    [
      "an explicit mapping for a draft that does not exist",
      () => transformOf([inputs["a_1.csv"]], [draft("a_1_t.csv")], { lineage: [{ output: "ghost.csv", sources: [inputs["a_1.csv"]] }] }),
      { __typename: "LineageIntegrityError", code: "LINEAGE_INTEGRITY", rule: "UNKNOWN_DRAFT", output: "ghost.csv", candidates: ["a_1_t.csv"] },
    ],
    [
      "an explicit source that is not an input or output",
      () => transformOf([inputs["a_1.csv"]], [draft("a_1_t.csv")], { lineage: [{ output: "a_1_t.csv", sources: [inputs["b.csv"]] }] }),
      { __typename: "LineageIntegrityError", rule: "UNKNOWN_SOURCE", role: "result", output: "a_1_t.csv" },
    ],
    [
      "two explicit mappings for one draft",
      () => transformOf([inputs["a_1.csv"], inputs["a_2.csv"]], [draft("a_1_t.csv")], { lineage: [{ output: "a_1_t.csv", sources: [inputs["a_1.csv"]] }, { output: "a_1_t.csv", sources: [inputs["a_2.csv"]] }] }),
      { __typename: "LineageIntegrityError", rule: "DUPLICATE_MAPPING", role: "result", output: "a_1_t.csv" },
    ],
    [
      "two outputs with the same name",
      () => transformOf([inputs["a_1.csv"]], [draft("a_1_t.csv"), { originalName: "a_1_t.csv", contentHash: sha256Of("other") }]),
      { __typename: "LineageIntegrityError", rule: "DUPLICATE_DRAFT_NAME", output: "a_1_t.csv" },
    ],
    [
      "a config reference to an artifact that does not exist",
      () => transformOf([inputs["a_1.csv"]], [draft("a_1_t.csv")], { params: { w: { $artifact: "art_1111111111111111111111111111111111111111" } } }),
      { __typename: "LineageIntegrityError", rule: "UNKNOWN_CONFIG_REFERENCE", candidates: ["art_1111111111111111111111111111111111111111"] },
    ],
  ];

  test.each(cases)("%s", async (_name, input, expected) => {
    const before = await tableCounts(t);
    const result = await recordExecution(t, input());
    expect(result).toMatchObject(typeof expected === "function" ? expected() : expected);
    expect(typeof result.message).toBe("string");
    expect(await tableCounts(t)).toEqual(before);
  });

  test.each([
    ["an unknown operation", () => ({ operation: "nope", operationVersion: "1", inputs: [], outputs: [] }), "NOT_FOUND", "operation"],
    ["a malformed input id", () => transformOf(["xyz"], [draft("a.csv")]), "INVALID_ID", "inputs[0].artifactIds[0]"],
    [
      "an input that does not exist",
      () => transformOf([inputs["a_1.csv"], "art_0000000000000000000000000000000000000000"], [draft("a_1_t.csv")]),
      "NOT_FOUND",
      "inputs[0].artifactIds[1]",
    ],
    ["a step without a pipeline", () => transformOf([inputs["a_1.csv"]], [draft("a_1_t.csv")], { step: 1 }), "INVALID_ARGUMENT", "pipeline"],
    ["a negative step", () => transformOf([inputs["a_1.csv"]], [draft("a_1_t.csv")], { pipeline: "p", step: -1 }), "INVALID_ARGUMENT", "step"],
    ["an empty content hash", () => transformOf([inputs["a_1.csv"]], [{ originalName: "a_1_t.csv", contentHash: " " }]), "INVALID_CONTENT_HASH", "outputs[0].artifacts[0].contentHash"],
    ["an unknown parent run", () => transformOf([inputs["a_1.csv"]], [draft("a_1_t.csv")], { parentRunId: "run_01a22f72-502b-7635-bf77-48dfa8edf8ad" }), "NOT_FOUND", "parentRunId"],
  ])("%s is a GraphQL error with a code and field, and writes nothing", async (_name, input, code, field) => {
    const before = await tableCounts(t);
    const res = await t.gql(`mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename } }`, { input: input() });
    expect(errorCodes(res)).toEqual([code]);
    expect(res.errors![0].extensions!.field).toBe(field);
    expect(await tableCounts(t)).toEqual(before);
  });

  test("a failure after some rows were staged rolls all of them back", async () => {
    // A trigger makes the last write (the edges) fail, after artifacts, execution and links were written.
    const database = t.app.database;
    if (database.provider === "sqlite") {
      await database.prisma.$executeRawUnsafe(
        `CREATE TRIGGER poison_edge BEFORE INSERT ON "ProvenanceEdge" WHEN NEW."targetType" = 'poison' BEGIN SELECT RAISE(ABORT, 'simulated failure'); END`,
      );
    } else {
      await database.prisma.$executeRawUnsafe(
        `CREATE FUNCTION poison_edge() RETURNS trigger AS $$ BEGIN IF NEW."targetType" = 'poison' THEN RAISE EXCEPTION 'simulated failure'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
      );
      await database.prisma.$executeRawUnsafe(`CREATE TRIGGER poison_edge BEFORE INSERT ON "ProvenanceEdge" FOR EACH ROW EXECUTE FUNCTION poison_edge()`);
    }
    await registerOperation(t, { ...transform, name: "poisoned", outputs: [{ role: "result", artifactType: "poison", inferLineageFrom: { inputs: ["data"] } }] });
    const before = await tableCounts(t);
    const res = await t.gql(`mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename } }`, {
      input: { ...transformOf([inputs["a_1.csv"]], [draft("a_1_poison.csv")], { pipeline: "r", step: 0 }), operation: "poisoned" },
    });
    expect(errorCodes(res)).toEqual(["INTERNAL_SERVER_ERROR"]);
    expect(res.errors![0].message).toBe("Unexpected error.");
    expect(await tableCounts(t)).toEqual(before);
  });

  test("a step conflict is found before anything is staged", async () => {
    await recordOk(t, transformOf([inputs["a_1.csv"]], [draft("a_1_s.csv")], { pipeline: "q", step: 0 }));
    const before = await tableCounts(t);
    const res = await t.gql(`mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename } }`, {
      input: { operation: "generate", operationVersion: "1", pipeline: "q", step: 0, inputs: [], outputs: [{ role: "sample", artifacts: [draft("brand_new.csv")] }] },
    });
    expect(errorCodes(res)).toEqual(["STEP_CONFLICT"]);
    expect(await tableCounts(t)).toEqual(before);
  });
});
