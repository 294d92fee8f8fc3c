import fc from "fast-check";
import { parseEventTime } from "../../src/openlineage/event-time";
import { RUN_EVENT_TYPES, type RunFacts } from "../../src/openlineage/event-facts";
import { foldRun, type StoredRunFacts } from "../../src/openlineage/run-fold";

/** The state of an OpenLineage run is a function of the set of its events, not of their order. */
const TIMES = ["2026-03-11T02:00:00.000Z", "2026-03-11T02:30:00.000Z", "2026-03-11T03:00:00.000Z"];

const factsArbitrary: fc.Arbitrary<StoredRunFacts> = fc.record({
  eventKey: fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 8, maxLength: 8 }),
  eventType: fc.constantFrom(...RUN_EVENT_TYPES),
  time: fc.nat(TIMES.length - 1),
  error: fc.option(fc.constantFrom("boom", "bust"), { nil: null }),
  sql: fc.option(fc.constantFrom("SELECT 1", "SELECT 2"), { nil: null }),
  agent: fc.option(fc.constantFrom("alice", "bob"), { nil: null }),
  inputs: fc.subarray(["a", "b", "c"]),
  outputs: fc.subarray(["x", "y"]),
  lineage: fc.boolean(),
}).map(({ eventKey, eventType, time, error, sql, agent, inputs, outputs, lineage }) => ({
  eventKey,
  facts: {
    eventType,
    eventTime: TIMES[time],
    job: { namespace: "ns", name: "job" },
    parent: null,
    error: error === null ? null : { message: error, programmingLanguage: null, stackTrace: null },
    params: sql === null ? {} : { sql: { query: sql } },
    codeVersion: null,
    imageDigest: null,
    agent,
    inputs: inputs.map((name) => ({ namespace: "ns", name, version: null })),
    outputs: outputs.map((name) => ({ namespace: "ns", name, version: null, columnSources: lineage ? inputs.slice(0, 1).map((n) => ({ namespace: "ns", name: n })) : null })),
  } satisfies RunFacts,
}));

const canonical = (fold: ReturnType<typeof foldRun>) => ({
  ...fold,
  inputs: [...fold.inputs].sort((a, b) => (a.name < b.name ? -1 : 1)),
  outputs: [...fold.outputs].map((o) => ({ ...o, columnSources: o.columnSources && [...o.columnSources].sort((a, b) => (a.name < b.name ? -1 : 1)) })).sort((a, b) => (a.name < b.name ? -1 : 1)),
});

describe("foldRun", () => {
  it("gives the same state for every order of the same events", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(factsArbitrary, { minLength: 1, maxLength: 6, selector: (f) => f.eventKey }).chain((events) => fc.tuple(fc.constant(events), fc.shuffledSubarray(events, { minLength: events.length }))),
        ([events, shuffled]) => {
          expect(canonical(foldRun(shuffled))).toEqual(canonical(foldRun(events)));
        },
      ),
    );
  });

  const event = (eventKey: string, eventType: RunFacts["eventType"], eventTime: string, error: string | null = null): StoredRunFacts => ({
    eventKey,
    facts: { eventType, eventTime, job: { namespace: "ns", name: "job" }, parent: null, error: error ? { message: error, programmingLanguage: null, stackTrace: null } : null, params: {}, codeVersion: null, imageDigest: null, agent: null, inputs: [], outputs: [] },
  });

  it("status: the latest terminal event; at one instant FAIL, then ABORT, then COMPLETE; else RUNNING; else STARTED", () => {
    const at = (minute: number) => `2026-03-11T02:${String(minute).padStart(2, "0")}:00.000Z`;
    expect(foldRun([event("a", "OTHER", at(0))]).status).toBe("STARTED");
    expect(foldRun([event("a", "START", at(0)), event("b", "RUNNING", at(1))]).status).toBe("RUNNING");
    expect(foldRun([event("a", "FAIL", at(1), "x"), event("b", "COMPLETE", at(2))])).toEqual(expect.objectContaining({ status: "COMPLETED", failure: null }));
    expect(foldRun([event("a", "COMPLETE", at(2)), event("b", "FAIL", at(2), "x"), event("c", "ABORT", at(2))])).toEqual(
      expect.objectContaining({ status: "FAILED", endedAt: new Date(at(2)), failure: { message: "x", programmingLanguage: null, stackTrace: null } }),
    );
    expect(foldRun([event("a", "COMPLETE", at(2)), event("c", "ABORT", at(2))]).status).toBe("ABORTED");
    expect(foldRun([event("a", "START", at(5)), event("b", "START", at(3)), event("c", "COMPLETE", at(9))])).toEqual(expect.objectContaining({ startedAt: new Date(at(3)), endedAt: new Date(at(9)) }));
  });
});

describe("parseEventTime", () => {
  it.each([
    ["2026-03-11T02:14:07.318Z", "2026-03-11T02:14:07.318Z", true],
    ["2026-03-11T02:14:07Z", "2026-03-11T02:14:07.000Z", true],
    ["2026-03-11T02:14:07.318123456Z", "2026-03-11T02:14:07.318Z", true],
    ["2026-03-11T04:14:07.318+02:00", "2026-03-11T02:14:07.318Z", true],
    ["2026-03-11T04:14:07+0200", "2026-03-11T02:14:07.000Z", true],
    ["2026-03-10T21:14:07-05", "2026-03-11T02:14:07.000Z", true],
    ["2026-03-11T02:14:07.318123", "2026-03-11T02:14:07.318Z", false],
    ["2026-03-11 02:14:07", "2026-03-11T02:14:07.000Z", false],
    ["2016-12-31T23:59:60Z", "2016-12-31T23:59:59.999Z", true],
  ])("%s is %s (zoned: %s)", (text, iso, zoned) => {
    expect(parseEventTime(text)).toEqual({ date: new Date(iso), zoned });
  });

  it.each(["2026-03-11", "yesterday", "2026-03-11T02:14Z", ""])("%s is not a date-time", (text) => {
    expect(parseEventTime(text)).toBeUndefined();
  });
});
