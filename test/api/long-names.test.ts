import { randomUUID } from "node:crypto";
import { createTestApp, errorCodes, type TestApp } from "../support/test-app";
import { draft, recordExecution, registerOperation, tableCounts } from "../support/recording";
import { registerComposite } from "../support/composites";
import { dataset, postEvent, runEvent } from "../support/openlineage";
import { MAX_NAME_BYTES } from "../../src/services/safe-text";

/**
 * Names are keys of indexes; PostgreSQL keeps a b-tree entry up to 2,704 bytes. A name may take
 * MAX_NAME_BYTES of UTF-8 wherever it enters, on both databases: names of that length, at once in the
 * keys that hold several, are stored; one byte more is a typed error naming the field, and nothing is
 * written. The names are random text of one- to four-byte characters, which compression cannot shrink.
 */

// mulberry32: a small seeded generator whose every bit is well mixed.
let seed = 20261205;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32;
}

/** Random text of exactly `bytes` bytes of UTF-8: letters and digits, Latin-1 letters, CJK ideographs, emoji (one to four bytes each). */
function nameOf(bytes: number): string {
  const ranges: [number, number][] = [
    [0x61, 0x7a],
    [0x30, 0x39],
    [0xc0, 0xff],
    [0x4e00, 0x9fff],
    [0x1f300, 0x1f5ff],
  ];
  let text = "";
  let used = 0;
  while (used < bytes) {
    const [low, high] = ranges[Math.floor(random() * ranges.length)];
    let char = String.fromCodePoint(low + Math.floor(random() * (high - low + 1)));
    if (used + Buffer.byteLength(char) > bytes) char = "x";
    text += char;
    used += Buffer.byteLength(char);
  }
  return text;
}

const MAX = MAX_NAME_BYTES;
const OPERATION = (name: string, version: string, role: string, type: string) => ({
  name,
  version,
  kind: "CREATOR",
  inputs: [{ role, artifactType: type }],
  outputs: [{ role: `${role.slice(0, -1)}o`, artifactType: type, inferLineageFrom: { inputs: [role] } }],
});

describe("names as long as a name may be", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  test("an operation, a two-step pipeline between long roles, datasets: stored, and found again", async () => {
    const name = nameOf(MAX);
    const version = nameOf(MAX);
    const role = nameOf(MAX - 1) + "i";
    const type = nameOf(MAX);
    const source = { name: nameOf(MAX), version: "1", kind: "CREATOR", inputs: [], outputs: [{ role, artifactType: type, inferLineageFrom: { inputs: [] } }] };
    expect((await registerOperation(t, source)).__typename).toBe("Operation");
    expect((await registerOperation(t, OPERATION(name, version, role, type))).__typename).toBe("Operation");
    const pipeline = nameOf(MAX);
    const namespace = nameOf(MAX);
    const first = await recordExecution(t, {
      operation: source.name,
      operationVersion: "1",
      pipeline,
      step: 1,
      inputs: [],
      outputs: [{ role, artifacts: [{ ...draft("a.csv"), dataset: { namespace, name: nameOf(MAX), version: nameOf(MAX) } }] }],
    });
    expect(first.__typename).toBe("RecordExecutionPayload");
    const made = first.execution.outputs[0].artifact.id;
    const second = await recordExecution(t, { operation: name, operationVersion: version, pipeline, step: 2, inputs: [{ role, artifactIds: [made] }], outputs: [{ role: `${role.slice(0, -1)}o`, artifacts: [{ originalName: "a.csv", contentHash: draft("b.csv").contentHash }] }] });
    expect([second.__typename, second.message]).toEqual(["RecordExecutionPayload", undefined]);
    const listed = await t.gql(`query($p: String!) { pipelines(prefix: $p) { edges { node { name } } } }`, { p: pipeline });
    expect(listed.data?.pipelines.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual([pipeline]);
    // The key of three names: the pipeline's flow from step 1's role into step 2's.
    expect((await tableCounts(t)).flows).toBe(1);
  });

  // The OpenLineage test's dataset and column, which the last test tags.
  const namespace = nameOf(MAX);
  const input = nameOf(MAX);
  const from = nameOf(MAX);

  test("OpenLineage: a job, its parent, datasets and columns with column lineage between long fields", async () => {
    const output = nameOf(MAX);
    const to = nameOf(MAX);
    const nested = nameOf(MAX - 2);
    const event = runEvent({
      run: {
        runId: randomUUID(),
        facets: { parent: { _producer: "x", _schemaURL: "https://openlineage.io/spec/facets/1-1-0/ParentRunFacet.json#/$defs/ParentRunFacet", run: { runId: randomUUID() }, job: { namespace: nameOf(MAX), name: nameOf(MAX) } } },
      },
      job: { namespace: nameOf(MAX), name: nameOf(MAX) },
      inputs: [dataset(namespace, input, { schema: { fields: [{ name: from, type: "TEXT" }] } })],
      outputs: [
        dataset(namespace, output, {
          schema: { fields: [{ name: to, type: "TEXT" }, { name: "a", type: "STRUCT", fields: [{ name: nested, type: "TEXT" }] }] },
          columnLineage: { fields: { [to]: { inputFields: [{ namespace, name: input, field: from, transformations: [{ type: "DIRECT", subtype: "IDENTITY" }] }] } } },
        }),
      ],
    });
    const answer = await postEvent(t, event);
    expect([answer.status, answer.json?.error?.code]).toEqual([201, undefined]);
    // The keys of two and three names: a column edge between two long fields, each column's search entry.
    expect((await tableCounts(t)).columnEdges).toBe(1);
  });

  test("a composite; a budget, a catalogue fact and a column tag on the long dataset", async () => {
    const role = nameOf(MAX);
    const step = nameOf(MAX);
    const op = { name: nameOf(MAX), version: "1", kind: "CREATOR", inputs: [{ role, artifactType: "csv" }], outputs: [{ role: nameOf(MAX), artifactType: "csv", inferLineageFrom: { inputs: [role] } }] };
    expect((await registerOperation(t, op)).__typename).toBe("Operation");
    const composite = await registerComposite(t, {
      name: nameOf(MAX),
      version: nameOf(MAX),
      intermediates: "PERSIST",
      inputs: [{ role, artifactType: "csv" }],
      outputs: [{ role: op.outputs[0].role, artifactType: "csv" }],
      steps: [{ name: step, operation: op.name, operationVersion: "1" }],
      wires: [
        { from: `in.${role}`, to: `${step}.${role}` },
        { from: `${step}.${op.outputs[0].role}`, to: `out.${op.outputs[0].role}` },
      ],
    });
    expect([composite.__typename, composite.message]).toEqual(["CompositeDefinition", undefined]);
    const name = input;
    const budget = await t.gql(`mutation($input: PrivacyBudgetInput!) { declarePrivacyBudget(input: $input) { namespace } }`, { input: { namespace, name, epsilon: 1, reason: "quarterly" } });
    expect(budget.errors).toBeUndefined();
    const fact = await t.gql(`mutation($input: RecordCatalogueFactsInput!) { recordCatalogueFacts(input: $input) { id } }`, { input: { target: { namespace, name }, immutable: true, reason: "archive" } });
    expect(fact.errors).toBeUndefined();
    const tag = await t.gql(`mutation($input: TagColumnInput!) { tagColumn(input: $input) { created } }`, { input: { column: { namespace, name, field: from }, tag: "PII", reason: "names" } });
    expect(tag.errors).toBeUndefined();
  });
});

describe("a name one byte longer than a name may be", () => {
  let t: TestApp;
  const source = { name: "source", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] };
  beforeAll(async () => {
    t = await createTestApp();
    expect((await registerOperation(t, source)).__typename).toBe("Operation");
  });
  afterAll(() => t.close());

  const tooLong = () => nameOf(MAX + 1);
  const why = new RegExp(`is ${MAX + 1} bytes long in UTF-8; a name may take at most ${MAX}`);

  test("registering an operation: NAME_TOO_LONG, nothing registered", async () => {
    const before = await tableCounts(t);
    const cases: [string, Record<string, unknown>][] = [
      ["name", { ...source, name: tooLong() }],
      ["version", { ...source, version: tooLong() }],
      ["role", { ...source, outputs: [{ ...source.outputs[0], role: tooLong() }] }],
      ["artifactType", { ...source, outputs: [{ ...source.outputs[0], artifactType: tooLong() }] }],
    ];
    for (const [what, input] of cases) {
      const answer = await registerOperation(t, input);
      expect([what, answer.__typename, answer.code, answer.rule]).toEqual([what, "OperationDeclarationError", "OPERATION_DECLARATION", "NAME_TOO_LONG"]);
      expect(answer.message).toMatch(why);
    }
    expect(await tableCounts(t)).toEqual(before);
  });

  test("recording an execution: INVALID_ARGUMENT naming the field, nothing recorded", async () => {
    const before = await tableCounts(t);
    const output = (dataset?: Record<string, string>) => [{ role: "raw", artifacts: [{ ...draft("a.csv"), ...(dataset ? { dataset: { namespace: "ns", name: "d", ...dataset } } : {}) }] }];
    const base = { operation: "source", operationVersion: "1", inputs: [], outputs: output() };
    const cases: [string, Record<string, unknown>][] = [
      ["operation", { ...base, operation: tooLong() }],
      ["pipeline", { ...base, pipeline: tooLong(), step: 1 }],
      ["outputs[0].role", { ...base, outputs: [{ ...output()[0], role: tooLong() }] }],
      ["outputs[0].artifacts[0].dataset.namespace", { ...base, outputs: output({ namespace: tooLong() }) }],
      ["outputs[0].artifacts[0].dataset.name", { ...base, outputs: output({ name: tooLong() }) }],
      ["outputs[0].artifacts[0].dataset.version", { ...base, outputs: output({ version: tooLong() }) }],
    ];
    for (const [field, input] of cases) {
      const res = await t.gql(`mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename } }`, { input });
      expect([errorCodes(res), res.errors?.[0].extensions?.field]).toEqual([["INVALID_ARGUMENT"], field]);
      expect(res.errors?.[0].message).toMatch(why);
    }
    expect(await tableCounts(t)).toEqual(before);
  });

  test("an OpenLineage event: INVALID_EVENT at the name's pointer, nothing stored", async () => {
    const before = await tableCounts(t);
    const long = tooLong();
    const event = (overrides: Record<string, unknown>) => runEvent({ job: { namespace: "ns", name: "j" }, inputs: [], outputs: [], ...overrides });
    const lineage = (field: string, inputField: string) => ({ columnLineage: { fields: { [field]: { inputFields: [{ namespace: "ns", name: "in", field: inputField, transformations: [{ type: "DIRECT", subtype: "IDENTITY" }] }] } } } });
    const parent = { parent: { _producer: "x", _schemaURL: "https://openlineage.io/spec/facets/1-1-0/ParentRunFacet.json#/$defs/ParentRunFacet", run: { runId: randomUUID() }, job: { namespace: "ns", name: long } } };
    const half = nameOf(MAX / 2);
    const cases: [string, Record<string, unknown>][] = [
      ["/job/name", event({ job: { namespace: "ns", name: long } })],
      ["/job/namespace", event({ job: { namespace: long, name: "j" } })],
      ["/run/facets/parent/job/name", event({ run: { runId: randomUUID(), facets: parent } })],
      ["/inputs/0/name", event({ inputs: [dataset("ns", long)] })],
      ["/outputs/0/namespace", event({ outputs: [dataset(long, "d")] })],
      ["/outputs/0/facets/schema/fields/0/name", event({ outputs: [dataset("ns", "d", { schema: { fields: [{ name: long }] } })] })],
      // Each name short enough, their dotted path not.
      ["/outputs/0/facets/schema/fields/0/fields/0/name", event({ outputs: [dataset("ns", "d", { schema: { fields: [{ name: half, fields: [{ name: half }] }] } })] })],
      ["/outputs/0/facets/version/datasetVersion", event({ outputs: [dataset("ns", "d", { version: { datasetVersion: long } })] })],
      ["/outputs/0/facets/columnLineage/fields/" + long, event({ outputs: [dataset("ns", "d", lineage(long, "f"))] })],
      ["/outputs/0/facets/columnLineage/fields/f/inputFields/0/field", event({ outputs: [dataset("ns", "d", lineage("f", long))] })],
    ];
    for (const [pointer, body] of cases) {
      const answer = await postEvent(t, body);
      expect([answer.status, answer.json?.error?.code, answer.json?.error?.pointer]).toEqual([400, "INVALID_EVENT", pointer]);
      expect(answer.json.error.reason).toMatch(why);
    }
    expect(await tableCounts(t)).toEqual(before);
  });

  test("a composite, a budget, a catalogue fact: typed errors, nothing written", async () => {
    const before = await tableCounts(t);
    const composite = await t.gql(`mutation($input: RegisterCompositeInput!) { registerComposite(input: $input) { __typename ... on CompositeDeclarationError { rule message } } }`, {
      input: { name: tooLong(), version: "1", intermediates: "PERSIST", inputs: [], outputs: [{ role: "raw", artifactType: "csv" }], steps: [{ name: "s", operation: "source", operationVersion: "1" }], wires: [{ from: "s.raw", to: "out.raw" }] },
    });
    expect([composite.data?.registerComposite.__typename, composite.data?.registerComposite.rule]).toEqual(["CompositeDeclarationError", "NAME_TOO_LONG"]);
    const budget = await t.gql(`mutation($input: PrivacyBudgetInput!) { declarePrivacyBudget(input: $input) { namespace } }`, { input: { namespace: tooLong(), name: "d", epsilon: 1, reason: "quarterly" } });
    expect([errorCodes(budget), budget.errors?.[0].extensions?.field]).toEqual([["INVALID_ARGUMENT"], "dataset.namespace"]);
    const fact = await t.gql(`mutation($input: RecordCatalogueFactsInput!) { recordCatalogueFacts(input: $input) { id } }`, { input: { target: { namespace: "ns", name: tooLong() }, immutable: true, reason: "archive" } });
    expect([errorCodes(fact), fact.errors?.[0].extensions?.field]).toEqual([["INVALID_ARGUMENT"], "name"]);
    expect(await tableCounts(t)).toEqual(before);
  });
});
