import { ECHO_LIMITS } from "../../src/services/echo-limits";
import { sha256Of } from "../support/content-hash";
import { postEvent, runEvent } from "../support/openlineage";
import { registerOperation } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * An error quotes what the caller sent so they can recognise it, never the whole of it: a 20 MB
 * argument used to come back twice (message and extensions), a 40 MB answer. Every message and
 * every string an error carries is cut to ECHO_LIMITS, however the error leaves: a GraphQL error,
 * a result union's Error member, an OpenLineage event's refusal.
 */
describe("errors quote at most ECHO_LIMITS of a caller's value", () => {
  let t: TestApp;
  const HUGE = 20_000_000;
  const huge = (prefix = "") => prefix + "x".repeat(HUGE - prefix.length);
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const post = async (query: string, variables: Record<string, unknown>) => {
    const response = await t.app.yoga.fetch("http://provgraph.test/graphql", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
    const text = await response.text();
    return { text, json: JSON.parse(text) };
  };

  test("a 20 MB id: INVALID_ID, message and extensions cut, the answer a few KB", async () => {
    const { text, json } = await post(`query($id: ID!) { artifact(id: $id) { id } }`, { id: huge("art_") });
    expect(text.length).toBeLessThan(4 * ECHO_LIMITS.characters);
    const [error] = json.errors;
    expect(error.extensions.code).toBe("INVALID_ID");
    expect(error.message).toMatch(/… \(\d+ characters\)$/);
    expect(error.message.length).toBeLessThanOrEqual(ECHO_LIMITS.characters + 30);
    expect(error.extensions.id).toBe(`art_${"x".repeat(ECHO_LIMITS.characters - 4)}… (${HUGE} characters)`);
  });

  test("a 20 MB value a variable's type refuses: BAD_USER_INPUT, its message cut", async () => {
    const { text, json } = await post(`query($n: Int) { executions(first: $n) { edges { cursor } } }`, { n: huge() });
    expect(json.errors[0].extensions.code).toBe("BAD_USER_INPUT");
    expect(text.length).toBeLessThan(4 * ECHO_LIMITS.characters);
  });

  test("a result union's Error member: message and fields cut", async () => {
    await registerOperation(t, { name: "echo", version: "1", kind: "CREATOR", inputs: [{ role: "in", artifactType: "csv" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["in"] } }] });
    const { text, json } = await post(
      `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename ... on Error { code message } ... on ArtifactValidationError { outputs candidates } } }`,
      { input: { operation: "echo", operationVersion: "1", inputs: [{ role: "in", artifactIds: [] }], outputs: [{ role: "out", artifacts: [{ originalName: huge(), contentHash: sha256Of("echo") }] }] } },
    );
    expect(text.length).toBeLessThan(8 * ECHO_LIMITS.characters);
    const result = json.data.recordExecution;
    expect([result.__typename, result.code]).toEqual(["ArtifactValidationError", "ARTIFACT_VALIDATION"]);
    expect(result.message.length).toBeLessThanOrEqual(ECHO_LIMITS.characters + 30);
    for (const output of result.outputs ?? []) expect(output.length).toBeLessThanOrEqual(ECHO_LIMITS.characters + 30);
  });

  test("an OpenLineage event's refusal quotes at most ECHO_LIMITS too", async () => {
    const answer = await postEvent(t, runEvent({ job: { namespace: "echo", name: `bad\u0001${"y".repeat(4_000_000)}` } }));
    expect(answer.status).toBe(400);
    expect(answer.text.length).toBeLessThan(4 * ECHO_LIMITS.characters);
  });
});
