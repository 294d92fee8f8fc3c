import fc from "fast-check";
import { type RawAnswer, rawRequest } from "../support/raw-socket";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * Fuzzing the HTTP edge over a real socket: generated Host headers (ports out of range, brackets,
 * spaces, userinfo, paths, percent signs, non-ASCII, control characters) and request targets
 * (malformed, overlong and double percent-encoding, NUL, dot segments, absolute forms) on every
 * route. Every answer is an HTTP answer below 500; a 400 is JSON with a typed code (GraphQL's
 * errors[].extensions.code, or the REST routes' error.code); none holds a
 * stack or a server path; and the server answers /healthz afterwards.
 */
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const RUNS = { hosts: 1500, targets: 2500 };

const STACK = /\n\s+at |node_modules|\/src\/|\.ts:\d+/;
const ROUTES = ["/healthz", "/readyz", "/graphql", "/api/v1/lineage", "/api/v1/lineage/batch", "/api/v1/evidence/", "/"];

/** Pieces hosts are made of: what a host name, an address and a port hold, and what none may. */
const hostPiece = fc.oneof(
  fc.constantFrom("127.0.0.1", "localhost", "example.org", "[::1]", "::1", "[", "]", "[zz", "[127.0.0.1]", ":", "::", "@", "user@", "/", "\\", " ", "\t", "%", "%20", "%0d%0a", "é", "\u0000", "\u007f", "*", ",", ";", "?", "#", ".", "..", "-", "_"),
  fc.integer({ min: -10, max: 200_000 }).map((port) => `:${port}`),
  fc.string({ unit: fc.constantFrom(..."abcxyz019.-:[]@/ %"), maxLength: 12 }),
);
const host = fc.array(hostPiece, { minLength: 0, maxLength: 5 }).map((pieces) => pieces.join(""));

/** Pieces of a target: percent-escapes good and bad, dot segments, separators, non-ASCII. */
const targetPiece = fc.oneof(
  fc.constantFrom("%", "%2", "%zz", "%%", "%00", "%2F", "%2f", "%5C", "%25", "%252F", "%C0%AF", "%E2%82", "%E2%82%AC", "%FF", "%FE%FF", "%u0041", "%7B__typename%7D", "..", ".", "/", "//", "?", "?query=", "&", "=", "#", ";", "@", "+", ":", "é", "€", "\u0001", "run_x", "evidence", "a"),
  fc.string({ unit: fc.constantFrom(..."abc019%-_.~/?=&"), maxLength: 10 }),
);
const target = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...ROUTES), fc.array(targetPiece, { maxLength: 6 })).map(([route, pieces]) => route + pieces.join("")) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom("http://", "https://", "ftp://", "//", "http:", ""), host, fc.constantFrom(...ROUTES), fc.array(targetPiece, { maxLength: 4 })).map(([scheme, h, route, pieces]) => scheme + h + route + pieces.join("")) },
  { weight: 1, arbitrary: fc.array(targetPiece, { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join("")) },
);
const method = fc.constantFrom("GET", "POST", "HEAD", "OPTIONS");

describe("fuzzing the HTTP edge: Host headers and request targets", () => {
  let t: TestApp;
  let port: number;
  const failures: { test: string; request: string; rule: string; answer: string }[] = [];
  let current = "";
  const statuses: Record<string, number> = {};
  let tried = 0;
  beforeAll(async () => {
    t = await createTestApp();
    port = Number(new URL(await t.app.start()).port);
  });
  afterAll(async () => {
    process.stdout.write(`\nHTTP edge fuzz (seed ${SEED}): ${tried} requests, statuses ${JSON.stringify(statuses)}, ${failures.length} failures\n${failures.slice(0, 10).map((f) => `  ${f.rule}\n    sent ${JSON.stringify(f.request)}\n    got ${f.answer}`).join("\n")}\n`);
    await t.close();
  });

  /** Sends one request byte for byte and checks the answer against the edge's rules. */
  const check = async (request: string) => {
    tried++;
    const fail = (rule: string, answer: string) => failures.push({ test: current, request: request.slice(0, 300), rule, answer: answer.slice(0, 600) });
    let answer: RawAnswer;
    try {
      answer = await rawRequest(port, Buffer.from(request, "latin1"));
    } catch (error) {
      fail("an HTTP answer", String(error));
      return;
    }
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    if (!(answer.status >= 100 && answer.status < 500)) fail("a status below 500", `${answer.status} ${answer.body}`);
    if (STACK.test(answer.body)) fail("no stack or server path", answer.body);
    // A HEAD answer has no body: its headers say what the body would be.
    if (answer.status === 400 && (request.startsWith("HEAD ") ? !answer.headers["content-type"]?.startsWith("application/json") : typeof (answer.json?.errors?.[0]?.extensions?.code ?? answer.json?.error?.code) !== "string")) {
      fail("a 400 is JSON with a typed code", `${JSON.stringify(answer.headers)} ${answer.body}`);
    }
  };
  const headersFor = (m: string, hostHeader: string | null) => `${hostHeader === null ? "" : `Host: ${hostHeader}\r\n`}${m === "POST" ? "Content-Type: application/json\r\nContent-Length: 2\r\n" : ""}Connection: close\r\n\r\n${m === "POST" ? "{}" : ""}`;

  test("generated Host headers on every route", async () => {
    current = "hosts";
    await fc.assert(
      fc.asyncProperty(method, fc.constantFrom(...ROUTES), host, async (m, route, h) => {
        await check(`${m} ${route === "/api/v1/evidence/" ? `${route}x` : route} HTTP/1.1\r\n${headersFor(m, h)}`);
        return true;
      }),
      { numRuns: Math.max(1, Math.round(RUNS.hosts * SCALE)), seed: SEED, endOnFailure: true },
    );
    expect(failures.filter((f) => f.test === "hosts")).toEqual([]);
  });

  test("generated request targets, with a good Host and without one (HTTP/1.0)", async () => {
    current = "targets";
    await fc.assert(
      fc.asyncProperty(method, target, fc.boolean(), async (m, path, withHost) => {
        await check(withHost ? `${m} ${path} HTTP/1.1\r\n${headersFor(m, "127.0.0.1")}` : `${m} ${path} HTTP/1.0\r\n${headersFor(m, null)}`);
        return true;
      }),
      { numRuns: Math.max(1, Math.round(RUNS.targets * SCALE)), seed: SEED, endOnFailure: true },
    );
    expect(failures.filter((f) => f.test === "targets")).toEqual([]);
  });

  test("the server still answers", async () => {
    const answer = await rawRequest(port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    expect([answer.status, answer.json]).toEqual([200, { status: "ok" }]);
    if (SCALE >= 1) expect(tried).toBeGreaterThanOrEqual(4_000);
  });
});
