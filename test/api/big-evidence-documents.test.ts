import { createHash } from "node:crypto";
import { draft } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * Evidence documents of megabytes (docs/api.md "Heavy reads"): GET /api/v1/evidence/<id> writes one
 * in pieces, byte for byte what its digest names; given back to verifyEvidence, it goes to the
 * heavy-read thread as its text, checked and parsed there, and the answers are those of the document
 * parsed on the event loop — valid, the differences, a body that is not JSON, a document nested too deep.
 */
const PARTS = 3_000;
const VERIFY = `query($d: JSON!) { verifyEvidence(document: $d) { valid documentSha256 currentSha256 differences } }`;

describe("evidence documents of megabytes", () => {
  let t: TestApp;
  let text: string;
  let sha256: string;
  let download: Response;

  const post = async (body: string) => {
    const response = await t.app.yoga.fetch("http://provgraph.test/graphql", { method: "POST", headers: { "content-type": "application/json", accept: "application/graphql-response+json" }, body });
    return { status: response.status, json: await response.json() };
  };
  const verify = (document: string) => post(`{"query":${JSON.stringify(VERIFY)},"variables":{"d":${document}}}`);

  beforeAll(async () => {
    t = await createTestApp({ env: { HEAVY_READ_THREADS: "1" } });
    const register = (input: unknown) => t.gql(`mutation($input: RegisterOperationInput!) { registerOperation(input: $input) { __typename } }`, { input });
    await register({ name: "scatter", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "part", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    await register({ name: "join", version: "1", kind: "CREATOR", inputs: [{ role: "parts", artifactType: "csv" }], outputs: [{ role: "joined", artifactType: "csv", inferLineageFrom: { inputs: ["parts"] } }] });
    const record = `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { ... on RecordExecutionPayload { execution { outputs { artifact { id } } } } ... on Error { code message } } }`;
    const pins = { imageDigest: "sha256:feed", deterministic: true, inputVersions: { source: "v1" } };
    const scattered = await t.gql(record, { input: { operation: "scatter", operationVersion: "1", pipeline: "wide", step: 1, pins, inputs: [], outputs: [{ role: "part", artifacts: Array.from({ length: PARTS }, (_, i) => draft(`part_${i}.csv`)) }] } });
    const parts = scattered.data!.recordExecution.execution.outputs.map((o: any) => o.artifact.id);
    const joined = await t.gql(record, {
      input: { operation: "join", operationVersion: "1", pipeline: "wide", step: 2, pins, inputs: [{ role: "parts", artifactIds: parts }], outputs: [{ role: "joined", artifacts: [draft("joined.csv")] }], lineage: [{ output: "joined.csv", sources: parts }] },
    });
    const join = joined.data!.recordExecution.execution.outputs[0].artifact.id;
    download = await t.app.yoga.fetch(`http://provgraph.test/api/v1/evidence/${join}`);
    text = await download.text();
    sha256 = JSON.parse(download.headers.get("etag")!).replace("sha256:", "");
    await t.app.services.heavyReads.warm();
  }, 180_000);
  afterAll(() => t.close());

  test("GET /api/v1/evidence/<id> serves the document (written in pieces) with its length, and its text is what its digest names", () => {
    expect([download.status, download.headers.get("content-length"), download.headers.get("transfer-encoding")]).toEqual([200, String(Buffer.byteLength(text)), null]);
    expect(createHash("sha256").update(text).digest("hex")).toBe(sha256);
  });

  test("the document as downloaded (over 1 MiB) is valid; its text was checked and parsed in the thread", async () => {
    expect(text.length).toBeGreaterThan(1 << 20);
    const before = t.app.services.heavyReads.stats().completed;
    expect(await verify(text)).toEqual({ status: 200, json: { data: { verifyEvidence: { valid: true, documentSha256: sha256, currentSha256: sha256, differences: [] } } } });
    // The text's check, then the verification.
    expect(t.app.services.heavyReads.stats().completed - before).toBe(2);
  });

  test("a changed document is not valid, and says where it differs", async () => {
    const changed = JSON.parse(text);
    changed.runs[0].imageDigest = "sha256:other";
    const answer = await verify(JSON.stringify(changed));
    expect(answer.json.data.verifyEvidence).toMatchObject({ valid: false, currentSha256: sha256, differences: ["/runs/0/imageDigest"] });
  });

  test("a document that is not JSON is refused as any body that is not: 400 BAD_REQUEST", async () => {
    const broken = await verify(`${text.slice(0, -1)},}`);
    const small = await post(`{"query":${JSON.stringify(VERIFY)},"variables":{"d":{"format":1,}}}`);
    expect(broken).toEqual(small);
    expect([broken.status, broken.json.errors.map((e: any) => e.extensions.code)]).toEqual([400, ["BAD_REQUEST"]]);
  });

  test("a document nested more than 64 levels is JSON_TOO_DEEP, as a small one is", async () => {
    const deep = (inner: string) => `{"format":"deep","root":${"[".repeat(70)}${inner}${"]".repeat(70)}}`;
    const big = await verify(deep(JSON.stringify("x".repeat(1 << 20))));
    const small = await verify(deep("1"));
    expect(big).toEqual(small);
    expect(big.json.errors.map((e: any) => e.extensions.code)).toEqual(["JSON_TOO_DEEP"]);
  });

  test("aliased verifyEvidence fields share the document given as text", async () => {
    const answer = await post(`{"query":"query($d: JSON!) { a: verifyEvidence(document: $d) { valid } b: verifyEvidence(document: $d, jws: \\"x\\") { valid } }","variables":{"d":${text}}}`);
    expect(answer.json.data.a).toEqual({ valid: true });
  });
});
