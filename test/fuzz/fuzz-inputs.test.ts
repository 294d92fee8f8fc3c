import fc from "fast-check";
import { OPERATIONS, pipelineComposite } from "../support/composite-fixtures";
import { REGISTER_COMPOSITE } from "../support/composites";
import { sha256Of } from "../support/content-hash";
import { fixtureFiles, withBaseFields } from "../support/openlineage";
import { REGISTER_OPERATION } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";
import { lineageBody, mutatedEvent, plausibleComposite, plausibleExecution, recordCompositeInput, recordExecutionInput, registerCompositeInput, registerOperationInput } from "./harness/arbitraries";
import { CaseChecker } from "./harness/case-checker";

// Issue 13, fuzzing: generated GraphQL inputs for recordExecution, registerOperation,
// registerComposite, recordCompositeExecution and ingestOpenLineageEvents, and OpenLineage events
// drawn from the shared fixtures and mutated, POSTed to the lineage routes. Every answer is a success
// or a typed error (never INTERNAL_SERVER_ERROR, never HTTP 5xx), no promise is left rejected, and a
// failed request leaves every table count as it was.

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
/** Cases per property; the sum is the run's (≥ 10,000). FUZZ_SCALE multiplies them. */
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const RUNS = { recordExecution: 3000, registerOperation: 1200, registerComposite: 600, recordCompositeExecution: 1200, ingestOpenLineageEvents: 1000, lineageRoutes: 3000 };

const RECORD_EXECUTION = `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) {
  __typename ... on RecordExecutionPayload { edgeCount execution { runId outputs { artifact { id } } inputs { artifact { id } } } } ... on Error { code message } } }`;
const REGISTER_OPERATION_DOC = `mutation($input: RegisterOperationInput!) { registerOperation(input: $input) { __typename ... on Operation { id } ... on Error { code message } } }`;
const REGISTER_COMPOSITE_DOC = `mutation($input: RegisterCompositeInput!) { registerComposite(input: $input) { __typename ... on CompositeDefinition { name } ... on Error { code message } } }`;
const RECORD_COMPOSITE = `mutation($input: RecordCompositeExecutionInput!) { recordCompositeExecution(input: $input) {
  __typename ... on RecordCompositeExecutionPayload { edgeCount execution { runId outputs { artifact { id } } } } ... on Error { code message } } }`;
const INGEST = `mutation($events: [JSON!]!) { ingestOpenLineageEvents(events: $events) { __typename stored refused duplicates results { status error { code } } } }`;

describe("fuzzing the write API", () => {
  let t: TestApp;
  let checker: CaseChecker;
  /** The csv artifacts the set-up recorded: composite runs take their inputs from them. */
  const sources: string[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  const started = Date.now();
  const fixtures = fixtureFiles().flatMap(({ events }) => events.map(withBaseFields));
  const run = async <T>(name: keyof typeof RUNS, arbitrary: fc.Arbitrary<T>, send: (value: T) => Promise<unknown>) => {
    await fc.assert(
      fc.asyncProperty(arbitrary, async (value) => {
        await send(value);
        return true;
      }),
      { numRuns: Math.max(1, Math.round(RUNS[name] * SCALE)), seed: SEED, endOnFailure: true },
    );
  };

  beforeAll(async () => {
    process.on("unhandledRejection", onUnhandled);
    t = await createTestApp();
    checker = new CaseChecker(t);
    // A store where valid-looking cases can succeed: the composite fixtures' operations, two composites, their inputs.
    for (const operation of OPERATIONS) await t.gql(REGISTER_OPERATION, { input: operation });
    await t.gql(REGISTER_COMPOSITE, { input: pipelineComposite("fuzz_persist", "PERSIST") });
    await t.gql(REGISTER_COMPOSITE, { input: pipelineComposite("fuzz_discard", "DISCARD") });
    for (const label of ["s1", "s2"]) {
      const answer = await checker.graphql("setup", "recordExecution", RECORD_EXECUTION, {
        input: { operation: "source", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: ["A0.csv", "A1.csv", "B0.csv", "B1.csv"].map((n) => ({ originalName: n, contentHash: sha256Of(`${label}/${n}`) })) }] },
      });
      if (answer?.__typename !== "RecordExecutionPayload") throw new Error(`setup failed: ${JSON.stringify(answer)}`);
      sources.push(...answer.execution.outputs.map((o: { artifact: { id: string } }) => o.artifact.id));
    }
  });
  afterAll(async () => {
    process.off("unhandledRejection", onUnhandled);
    const tried = checker.total() - (checker.tried.setup ?? 0);
    const line = `fuzz suite (${t.app.database.provider}, seed ${SEED}): ${tried} cases tried (${Object.entries(checker.tried).filter(([k]) => k !== "setup").map(([k, n]) => `${k} ${n}`).join(", ")}), ${checker.failures.length + unhandled.length} failures found, ${((Date.now() - started) / 1000).toFixed(1)} s`;
    process.stdout.write(`\n${line}\n${checker.failures.slice(0, 10).map((f) => `  ${f.kind}: ${f.rule}\n    sent ${f.request}\n    got ${f.answer}`).join("\n")}\n`);
    if (process.env.FUZZ_OUTCOMES) process.stdout.write(`${JSON.stringify(checker.outcomes, null, 1)}\n`);
    await t.close();
  });

  test("registerOperation: generated declarations", async () => {
    await run("registerOperation", registerOperationInput, (input) => checker.graphql("registerOperation", "registerOperation", REGISTER_OPERATION_DOC, { input }));
    expect(checker.failures.filter((f) => f.kind === "registerOperation")).toEqual([]);
  });

  test("recordExecution: generated inputs", async () => {
    const known = () => checker.artifactIds;
    await run("recordExecution", fc.oneof(plausibleExecution(known), recordExecutionInput(known)), (input) => checker.graphql("recordExecution", "recordExecution", RECORD_EXECUTION, { input }));
    expect(checker.failures.filter((f) => f.kind === "recordExecution")).toEqual([]);
    expect(checker.outcomes["recordExecution OK"]).toBeGreaterThan(0);
  });

  test("registerComposite: the acceptance composite, mutated", async () => {
    await run("registerComposite", registerCompositeInput, (input) => checker.graphql("registerComposite", "registerComposite", REGISTER_COMPOSITE_DOC, { input }));
    expect(checker.failures.filter((f) => f.kind === "registerComposite")).toEqual([]);
  });

  test("recordCompositeExecution: generated runs of the registered composites", async () => {
    await run("recordCompositeExecution", fc.oneof(plausibleComposite(() => sources), recordCompositeInput(() => checker.artifactIds)), (input) => checker.graphql("recordCompositeExecution", "recordCompositeExecution", RECORD_COMPOSITE, { input }));
    expect(checker.failures.filter((f) => f.kind === "recordCompositeExecution")).toEqual([]);
    expect(checker.outcomes["recordCompositeExecution OK"]).toBeGreaterThan(0);
  });

  test("ingestOpenLineageEvents: mutated fixture events through GraphQL", async () => {
    await run("ingestOpenLineageEvents", fc.array(mutatedEvent(fixtures), { minLength: 1, maxLength: 3 }), (events) => checker.graphql("ingestOpenLineageEvents", "ingestOpenLineageEvents", INGEST, { events }));
    expect(checker.failures.filter((f) => f.kind === "ingestOpenLineageEvents")).toEqual([]);
    expect(checker.outcomes["ingestOpenLineageEvents stored some"]).toBeGreaterThan(0);
  });

  test("the lineage routes: mutated fixture events, batches, NDJSON, cut and garbled bodies", async () => {
    await run("lineageRoutes", lineageBody(fixtures), ({ route, body, contentType }) => checker.lineage("lineageRoutes", route, body, contentType));
    expect(checker.failures.filter((f) => f.kind === "lineageRoutes")).toEqual([]);
  });

  test("no promise was left rejected, and at least 10,000 cases ran", () => {
    expect(unhandled.map(String)).toEqual([]);
    if (SCALE >= 1) expect(checker.total() - (checker.tried.setup ?? 0)).toBeGreaterThanOrEqual(10_000);
  });
});
