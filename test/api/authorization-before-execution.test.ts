import { type Client, createClient } from "graphql-ws";
import WebSocket from "ws";
import { auditTrail, createTokenTestApp, everyTableCount, sseEvents, type TokenTestApp } from "../support/auth";
import { ERASURE_SECRET, hopEvent, ingest, latestVersionId } from "../support/compliance";
import { dataset, runEvent } from "../support/openlineage";
import { draft, registerOperation } from "../support/recording";
import { SseReader } from "../support/sse";

/**
 * A whole operation is authorized before any of it runs: a root field the token lacks the scope for,
 * anywhere in the operation (behind fragments, inline fragments, aliases, or @include), means
 * nothing runs — no row in any table, no feed event, no audit entry claiming OK — over HTTP, SSE
 * and graphql-ws alike. Fields the executor would skip (@skip / @include(if: false)) are not run,
 * so they do not count.
 */
describe("authorization before execution: a refused operation writes nothing", () => {
  let t: TokenTestApp;
  let url: string;
  let write: string;
  let read: string;
  let columnArtifact: string;
  let runs = 0;

  const recordExecution = (alias = "") => {
    const name = `run-${++runs}.csv`;
    return `${alias}recordExecution(input: { operation: "gen", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: [{ originalName: "${name}", contentHash: "${draft(name).contentHash}" }] }] }) { ... on RecordExecutionPayload { execution { runId } } }`;
  };
  const createApiToken = (alias = "", directive = "") => `${alias}createApiToken(input: { name: "sneaky", scopes: ["admin"] }) ${directive} { token }`;
  const registerOp = (alias = "") => `${alias}registerOperation(input: { name: "other", version: "1", kind: CREATOR, inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] }) { __typename }`;
  const tagColumn = (alias = "", directive = "") => `${alias}tagColumn(input: { column: { artifactId: "${columnArtifact}", field: "email" }, tag: "PII", reason: "contact data" }) ${directive} { created }`;
  const erasurePlan = (alias = "") => `${alias}erasurePlan(subjectKey: "customer-4711") { id }`;
  const ingestEvents = (alias = "") => `${alias}ingestOpenLineageEvents(events: $events) { stored }`;
  const olEvent = () => ({ events: [runEvent({ job: { namespace: "authz", name: "nightly" }, outputs: [dataset("authz", "out")] })] });

  /** Each pairing: the document, its variables, and the refused fields as [response key, field, scope]. */
  const PAIRINGS: [name: string, query: () => string, variables: () => Record<string, unknown> | undefined, refused: [string, string, string][]][] = [
    ["recordExecution beside createApiToken", () => `mutation { ${recordExecution("a: ")} ${createApiToken("b: ")} }`, () => undefined, [["b", "createApiToken", "admin"]]],
    ["recordExecution beside tagColumn", () => `mutation { ${recordExecution()} ${tagColumn()} }`, () => undefined, [["tagColumn", "tagColumn", "admin"]]],
    ["recordExecution beside registerOperation", () => `mutation { ${recordExecution()} ${registerOp()} }`, () => undefined, [["registerOperation", "registerOperation", "admin"]]],
    ["ingestOpenLineageEvents beside erasurePlan", () => `mutation($events: [JSON!]!) { ${ingestEvents()} ${erasurePlan()} }`, olEvent, [["erasurePlan", "erasurePlan", "admin"]]],
    ["the forbidden field last, after two allowed ones", () => `mutation($events: [JSON!]!) { ${recordExecution("one: ")} ${ingestEvents("two: ")} ${createApiToken("three: ")} }`, olEvent, [["three", "createApiToken", "admin"]]],
    ["behind a fragment spread", () => `mutation { ...Both } fragment Both on Mutation { ${recordExecution()} ${registerOp()} }`, () => undefined, [["registerOperation", "registerOperation", "admin"]]],
    ["behind an inline fragment", () => `mutation { ${recordExecution()} ... on Mutation { ${createApiToken()} } }`, () => undefined, [["createApiToken", "createApiToken", "admin"]]],
    ["behind @include(if: $yes)", () => `mutation($yes: Boolean!) { ${recordExecution()} ${tagColumn("", "@include(if: $yes)")} }`, () => ({ yes: true }), [["tagColumn", "tagColumn", "admin"]]],
    ["behind @skip(if: $no)", () => `mutation($no: Boolean!) { ${recordExecution()} ... @skip(if: $no) { ${tagColumn()} } }`, () => ({ no: false }), [["tagColumn", "tagColumn", "admin"]]],
    [
      "two aliased copies and a second forbidden field",
      () => `mutation { ${createApiToken("x: ")} ${recordExecution()} ${createApiToken("y: ")} ${erasurePlan()} }`,
      () => undefined,
      [
        ["x", "createApiToken", "admin"],
        ["y", "createApiToken", "admin"],
        ["erasurePlan", "erasurePlan", "admin"],
      ],
    ],
  ];

  beforeAll(async () => {
    t = await createTokenTestApp({ env: { PROVGRAPH_ERASURE_SECRET: ERASURE_SECRET } });
    url = await t.app.start();
    await registerOperation(t, { name: "gen", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    await ingest(t, hopEvent("authz", "load", [{ name: "raw", fields: ["email"] }], { name: "customers", fields: ["email"] }, [["email", "raw", "email", "DIRECT"]]));
    columnArtifact = await latestVersionId(t, "authz", "customers");
    write = await t.issue(["write"], { name: "ci" });
    read = await t.issue(["read"], { name: "reader" });
  });
  afterAll(() => t.close());

  function expectRefusal(body: any, refused: [string, string, string][], held = "write", token = "ci") {
    expect(body.data).toBeNull();
    expect(body.errors.map((e: any) => [e.path, e.message, e.extensions])).toEqual(
      refused.map(([key, field, scope]) => [[key], `${field} needs the ${scope} scope; token '${token}' has ${held}`, { code: "FORBIDDEN", field, scope }]),
    );
  }

  /** Nothing written anywhere; the audit trail gained only the refusals, one per refused field. */
  async function expectNothingWritten(before: Record<string, number>, trailBefore: number, refused: [string, string, string][], via: "HTTP" | "WS", actor = "ci") {
    const after = await everyTableCount(t);
    expect({ ...after, AuditEvent: 0 }).toEqual({ ...before, AuditEvent: 0 });
    expect((await auditTrail(t)).slice(trailBefore)).toEqual(refused.map(([, field]) => ({ actor, via, action: field, targets: expect.any(Array), outcome: "FORBIDDEN" })));
  }

  describe.each([
    ["HTTP", {}],
    ["SSE", { accept: "text/event-stream" }],
  ])("over %s", (_transport, headers: Record<string, string>) => {
    test.each(PAIRINGS)("%s: 403 FORBIDDEN naming the field and scope, and nothing runs", async (_name, query, variables, refused) => {
      const before = await everyTableCount(t);
      const trail = (await auditTrail(t)).length;
      const answer = await t.send({ token: write, headers, graphql: { query: query(), variables: variables() } });
      expect(answer.status).toBe(403);
      expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="provgraph", error="insufficient_scope", scope="admin"');
      expectRefusal(headers.accept ? sseEvents(answer.text)[0].data : answer.json, refused);
      await expectNothingWritten(before, trail, refused, "HTTP");
    });
  });

  describe("over graphql-ws", () => {
    let client: Client;
    beforeAll(() => {
      client = createClient({ url: url.replace("http", "ws"), webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${write}` }, retryAttempts: 0, lazy: true });
    });
    afterAll(() => client.dispose());

    const run = (query: string, variables?: Record<string, unknown>) =>
      new Promise<any>((resolve, reject) => {
        let result: unknown;
        client.subscribe({ query, variables }, { next: (value) => (result = value), complete: () => resolve(result), error: reject });
      });

    test.each(PAIRINGS)("%s: FORBIDDEN naming the field and scope, and nothing runs", async (_name, query, variables, refused) => {
      const before = await everyTableCount(t);
      const trail = (await auditTrail(t)).length;
      expectRefusal(await run(query(), variables()), refused);
      await expectNothingWritten(before, trail, refused, "WS");
    });
  });

  test("a read token's mutation mixing recording and ingestion: both refused, each naming write", async () => {
    const before = await everyTableCount(t);
    const trail = (await auditTrail(t)).length;
    const refused: [string, string, string][] = [
      ["recordExecution", "recordExecution", "write"],
      ["ingestOpenLineageEvents", "ingestOpenLineageEvents", "write"],
    ];
    const answer = await t.gqlAs(read, `mutation($events: [JSON!]!) { ${recordExecution()} ${ingestEvents()} }`, olEvent());
    expect(answer.status).toBe(403);
    expectRefusal(answer, refused, "read", "reader");
    await expectNothingWritten(before, trail, refused, "HTTP", "reader");
  });

  test("a forbidden field the executor skips does not count: the rest runs and is audited OK", async () => {
    for (const [query, variables] of [
      [`mutation { ${recordExecution()} ${createApiToken("", "@skip(if: true)")} }`, undefined],
      [`mutation($yes: Boolean!) { ${recordExecution()} ...Admin @include(if: $yes) } fragment Admin on Mutation { ${registerOp()} }`, { yes: false }],
    ] as const) {
      const before = await everyTableCount(t);
      const trail = (await auditTrail(t)).length;
      const answer = await t.gqlAs(write, query, variables);
      expect(answer.errors).toBeUndefined();
      expect(Object.keys(answer.data!)).toEqual(["recordExecution"]);
      const after = await everyTableCount(t);
      expect(after.Execution).toBe(before.Execution + 1);
      expect(after.ApiToken).toBe(before.ApiToken);
      expect(after.Operation).toBe(before.Operation);
      expect((await auditTrail(t)).slice(trail)).toEqual([{ actor: "ci", via: "HTTP", action: "recordExecution", targets: [answer.data!.recordExecution.execution.runId], outcome: "OK" }]);
    }
  });

  test("variables that do not fit decide no @include: the forbidden field counts, and nothing runs", async () => {
    const before = await everyTableCount(t);
    const answer = await t.gqlAs(write, `mutation($yes: Boolean!) { ${recordExecution()} ${createApiToken("", "@include(if: $yes)")} }`, { yes: "no" });
    expect(answer.data).toBeNull();
    expect(answer.errors!.map((e) => e.extensions!.code)).toEqual(["FORBIDDEN"]);
    expect({ ...(await everyTableCount(t)), AuditEvent: 0 }).toEqual({ ...before, AuditEvent: 0 });
  });

  test("a live subscriber hears nothing of a refused operation: the first event it gets is the next allowed run", async () => {
    const response = await t.app.yoga.fetch("http://provgraph.test/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${read}` },
      body: JSON.stringify({ query: "subscription { runRecorded { execution { runId } } }" }),
    });
    const feed = await new SseReader(response.body!).ready();
    try {
      const refused = await t.gqlAs(write, `mutation($events: [JSON!]!) { ${recordExecution("a: ")} ${ingestEvents("b: ")} ${createApiToken("c: ")} }`, olEvent());
      expect(refused.status).toBe(403);
      const allowed = await t.gqlAs(write, `mutation { ${recordExecution()} }`);
      const [event] = await feed.take(1);
      expect(event.data.data.runRecorded.execution.runId).toBe(allowed.data!.recordExecution.execution.runId);
    } finally {
      await feed.cancel();
    }
  });
});
