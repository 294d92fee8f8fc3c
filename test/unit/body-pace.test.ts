import { BodyArrivalError, readBoundedBody } from "../../src/http/bounded-body";

/** A request whose body arrives as `plan` says: chunks after delays (ms), then the end, a stall or an error. */
function requestOf(plan: { chunks: [delayMs: number, bytes: number][]; then: "end" | "stall" | "error"; declared?: number }): Request {
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const [delay, bytes] of plan.chunks) {
        await new Promise((resolve) => setTimeout(resolve, delay));
        controller.enqueue(new Uint8Array(bytes).fill(0x20));
      }
      if (plan.then === "end") controller.close();
      if (plan.then === "error") controller.error(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
    },
  });
  const headers = plan.declared === undefined ? {} : { "content-length": String(plan.declared) };
  return new Request("http://provgraph.test/graphql", { method: "POST", body, headers, duplex: "half" } as RequestInit);
}

const BOUNDS = { maxBytes: 1 << 20, maxNesting: 128 };

describe("a request body's pace (BODY_MIN_BYTES_PER_SECOND)", () => {
  test("a body that stalls is refused once it falls behind: BODY_TOO_SLOW, 408, with what arrived", async () => {
    const started = Date.now();
    const error = await readBoundedBody(requestOf({ chunks: [[0, 100]], then: "stall" }), { ...BOUNDS, pace: { minBytesPerSecond: 1_000, graceMs: 200, fromBytes: 1024 } }).catch((e) => e);
    expect(error).toBeInstanceOf(BodyArrivalError);
    expect([error.code, error.status, error.details]).toEqual(["BODY_TOO_SLOW", 408, { receivedBytes: 100, limit: 1_000 }]);
    // Behind at grace + 100 bytes / 1,000 bytes/s: 300 ms (timers are not early; the machine may be late).
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(error.message).toMatch(/^the body arrived at \d+ bytes\/s \(100 bytes in 0\.\d s\); at least 1000 bytes\/s are required after the first 0\.2 s \(BODY_MIN_BYTES_PER_SECOND\)$/);
  });

  test("a body that keeps the pace is read whole, however long it takes", async () => {
    // 10 chunks of 100 bytes every 50 ms: 2,000 bytes/s against 200 required (room for a loaded machine's late timers), 500 ms past a 100 ms grace.
    const chunks = Array.from({ length: 10 }, () => [50, 100] as [number, number]);
    const bytes = await readBoundedBody(requestOf({ chunks, then: "end" }), { ...BOUNDS, pace: { minBytesPerSecond: 200, graceMs: 100, fromBytes: 1024 } });
    expect(bytes.length).toBe(1_000);
  });

  test("a trickle is refused though bytes keep coming: the average counts, not the gaps", async () => {
    // 10 bytes every 20 ms: 500 bytes/s against 1,000 required.
    const chunks = Array.from({ length: 100 }, () => [20, 10] as [number, number]);
    const error = await readBoundedBody(requestOf({ chunks, then: "end" }), { ...BOUNDS, pace: { minBytesPerSecond: 1_000, graceMs: 100, fromBytes: 1024 } }).catch((e) => e);
    expect([error.code, error.status]).toEqual(["BODY_TOO_SLOW", 408]);
    expect(error.details.receivedBytes).toBeLessThan(1_000);
  });

  test("without a pace (0 or none), a slow body is waited for", async () => {
    const bytes = await readBoundedBody(requestOf({ chunks: [[0, 10], [400, 10]], then: "end" }), { ...BOUNDS, pace: { minBytesPerSecond: 0, graceMs: 100, fromBytes: 1024 } });
    expect(bytes.length).toBe(20);
  });

  test("a body declared shorter than fromBytes (HEAVY_BODY_BYTES: it holds no turn) keeps no pace; one declared at it does", async () => {
    const pace = { minBytesPerSecond: 1_000, graceMs: 100, fromBytes: 1024 };
    const light = await readBoundedBody(requestOf({ chunks: [[0, 10], [400, 10]], then: "end", declared: 20 }), { ...BOUNDS, pace });
    expect(light.length).toBe(20);
    const heavy = await readBoundedBody(requestOf({ chunks: [[0, 10], [400, 1014]], then: "end", declared: 1024 }), { ...BOUNDS, pace }).catch((e) => e);
    expect([heavy.code, heavy.status]).toEqual(["BODY_TOO_SLOW", 408]);
  });

  test("a body the client cuts off is BODY_INCOMPLETE, 400 — not a socket error that reads as a database outage", async () => {
    for (const pace of [undefined, { minBytesPerSecond: 1_000, graceMs: 10_000, fromBytes: 1024 }]) {
      const error = await readBoundedBody(requestOf({ chunks: [[0, 300]], then: "error" }), { ...BOUNDS, pace }).catch((e) => e);
      expect(error).toBeInstanceOf(BodyArrivalError);
      expect([error.code, error.status, error.message]).toEqual(["BODY_INCOMPLETE", 400, "the connection closed before the body was complete (300 bytes received)"]);
    }
  });
});
