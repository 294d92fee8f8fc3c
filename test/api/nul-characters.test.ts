import { RECORD_COMPOSITE } from "../support/composites";
import { draft, RECORD_EXECUTION, registerOperation, tableCounts } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

// Found by the fuzz suite (issue 13) on PostgreSQL, which refuses U+0000 in text: a NUL in a pin, or
// in the name of a composite being looked up, reached the database and answered INTERNAL_SERVER_ERROR.
// It is refused (or found to name nothing) before any query, on both databases, writing nothing.

const generate = { name: "generate", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "sample", artifactType: "csv", inferLineageFrom: { inputs: [] } }] };

describe("a NUL character is a caller's mistake on every database", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generate);
  });
  afterAll(() => t.close());

  const record = (pins: Record<string, unknown>) =>
    t.gql(RECORD_EXECUTION, { input: { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: [draft("s.csv")] }], pins } });

  test.each([
    ["pins.imageDigest", { imageDigest: "sha256:a\u0000b" }],
    ["pins.codeVersion", { codeVersion: "v1\u0000" }],
  ])("a NUL in %s is INVALID_ARGUMENT naming it; nothing is written", async (field, pins) => {
    const before = await tableCounts(t);
    const res = await record(pins);
    const at = field === "pins.imageDigest" ? 8 : 2;
    expect(res.errors!.map((e) => e.extensions)).toEqual([{ code: "INVALID_ARGUMENT", field, reason: `contains the control character U+0000 at index ${at}` }]);
    expect(await tableCounts(t)).toEqual(before);
  });

  test("a composite or operation name with a NUL names nothing: NOT_FOUND", async () => {
    const before = await tableCounts(t);
    const composite = await t.gql(RECORD_COMPOSITE, { input: { composite: "a\u0000b", compositeVersion: "1", inputs: [], steps: [] } });
    expect(composite.errors!.map((e) => e.extensions?.code)).toEqual(["NOT_FOUND"]);
    const registered = await t.app.services.registry.find("generate\u0000", "1");
    expect(registered).toBeUndefined();
    expect(await tableCounts(t)).toEqual(before);
  });
});
