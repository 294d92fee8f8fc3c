import http from "node:http";
import { type App, buildApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { RUN_EVENT_SCHEMA } from "../support/openlineage";
import { createTestDatabaseUrl } from "../support/test-database";

/**
 * A body refused while it is read (nested too deep, too large) is answered at once with its typed
 * error, and the rest of what the client sends is read and dropped: the client reads the answer
 * (no broken pipe, no reset) and the same connection serves its next request.
 */
describe("refused bodies on a real socket: answered, then drained", () => {
  let app: App;
  let url: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const database = await createTestDatabaseUrl();
    drop = database.drop;
    app = await buildApp(loadConfig({ DATABASE_URL: database.url, PORT: "0", LOG_LEVEL: "silent" }));
    url = await app.start();
  }, 180_000);
  afterAll(async () => {
    await app.stop();
    await drop();
  });

  const deepGraphQL = (depth: number) => Buffer.concat([Buffer.from('{"query":"{__typename}","variables":{"a":'), Buffer.alloc(depth, "["), Buffer.alloc(depth, "]"), Buffer.from("}}")]);
  const deepEvent = (depth: number) =>
    Buffer.concat([
      Buffer.from(`{"eventType":"COMPLETE","eventTime":"2026-03-11T02:14:07.318Z","producer":"x","schemaURL":"${RUN_EVENT_SCHEMA}","run":{"runId":"0190e0a4-8c3a-7d2b-9c6e-1f2a3b4c5d6e","facets":{"a":`),
      Buffer.alloc(depth, "["),
      Buffer.alloc(depth, "]"),
      Buffer.from("}}}"),
    ]);

  /** Sends `body` and then a GET /healthz on the same keep-alive connection; both answers, or the error that ended them. */
  async function sendThenProbe(path: string, body: Buffer): Promise<{ status: number; code: string | undefined; next: number }> {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const request = http.request(new URL(path, url), { method: "POST", agent, headers: { "content-type": "application/json", accept: "application/graphql-response+json", "content-length": String(body.length) } }, (response) => {
          let text = "";
          response.setEncoding("utf8");
          response.on("data", (chunk: string) => (text += chunk));
          response.on("end", () => resolve({ status: response.statusCode!, text }));
        });
        request.on("error", reject);
        request.end(body);
      });
      const json = JSON.parse(first.text);
      const next = await new Promise<number>((resolve, reject) => {
        http.get(new URL("/healthz", url), { agent }, (response) => {
          response.resume();
          response.on("end", () => resolve(response.statusCode!));
        }).on("error", reject);
      });
      return { status: first.status, code: json.errors?.[0]?.extensions?.code ?? json.error?.code ?? json.code, next };
    } finally {
      agent.destroy();
    }
  }

  test("POST /graphql: 24.8 MB nested 12.4 million deep → 400 JSON_TOO_DEEP, read in full by the client", async () => {
    expect(await sendThenProbe("/graphql", deepGraphQL(12_400_000))).toEqual({ status: 400, code: "JSON_TOO_DEEP", next: 200 });
  }, 60_000);

  test("POST /graphql through fetch: the answer arrives, no broken pipe", async () => {
    const response = await fetch(new URL("/graphql", url), { method: "POST", headers: { "content-type": "application/json", accept: "application/graphql-response+json" }, body: deepGraphQL(5_000_000) });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].extensions.code).toBe("JSON_TOO_DEEP");
  }, 60_000);

  test("POST /api/v1/lineage and /batch: 10 MB nested 5 million deep → 400 JSON_TOO_DEEP, the connection serves on", async () => {
    expect(await sendThenProbe("/api/v1/lineage", deepEvent(5_000_000))).toMatchObject({ status: 400, code: "JSON_TOO_DEEP", next: 200 });
    expect(await sendThenProbe("/api/v1/lineage/batch", Buffer.concat([Buffer.from("["), deepEvent(5_000_000), Buffer.from("]")]))).toMatchObject({ status: 400, code: "JSON_TOO_DEEP", next: 200 });
  }, 60_000);
});
