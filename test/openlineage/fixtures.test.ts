import { fixtureFiles, postEvent, postLineage, withBaseFields } from "../support/openlineage";
import { tableCounts } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * Every one of the 626 events of OpenLineage's own integration tests (test/fixtures/openlineage/, copied from ../shared/fixtures/openlineage/
 * events, 158 files). They are expected-event templates: placeholders are substituted (see
 * substitutePlaceholders) and the base fields the README says they lack are filled — a missing
 * producer, eventTime or schemaURL gets a valid value — and nothing else is changed. Each is then
 * posted as real producers' output: stored where the official schema allows it (a value that only
 * breaks its `format` is a warning stored with the event), refused with a JSON pointer and reason
 * where it does not.
 */
describe("OpenLineage's integration-test events", () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  it("stores the 501 events the schema accepts (some with format warnings) and refuses the 125 others, each with its pointer and reason, writing nothing for them", async () => {
    const tally: Record<string, number> = {};
    const warned: Record<string, number> = {};
    const stored: { runId: string; event: Record<string, unknown> }[] = [];
    const refused: { event: Record<string, unknown>; error: unknown }[] = [];
    let events = 0;
    for (const { file, events: templates } of fixtureFiles()) {
      const batch = templates.map(withBaseFields);
      const answer = await postLineage(t, JSON.stringify(batch), { "content-type": "application/json" }, "/api/v1/lineage/batch");
      expect([200, 207]).toContain(answer.status);
      expect(answer.json.results).toHaveLength(batch.length);
      answer.json.results.forEach((result: any, i: number) => {
        events++;
        const key = result.error ? `${result.error.code} ${result.error.pointer.replace(/\/\d+\//g, "/N/")}: ${result.error.reason}` : result.status;
        tally[key] = (tally[key] ?? 0) + 1;
        for (const w of result.warnings ?? []) {
          const warning = `${w.code} ${w.pointer.replace(/\/\d+\//g, "/N/")}: ${w.reason}`;
          warned[warning] = (warned[warning] ?? 0) + 1;
        }
        if (result.status === "STORED") stored.push({ runId: result.runId, event: batch[i] });
        else if (result.status === "REFUSED") refused.push({ event: batch[i], error: result.error });
        else throw new Error(`${file}[${i}]: unexpected ${JSON.stringify(result)}`);
      });
    }
    expect(events).toBe(626);
    expect(tally).toEqual({
      STORED: 501,
      // The Hive COMPLETE templates, Spark's and others' leave runId out (see the Hive test below).
      "INVALID_EVENT /run/runId: is required and missing": 86,
      // dbt's templates write null for unset optional fields.
      "INVALID_EVENT /job/facets/jobType/_deleted: must be boolean": 19,
      "INVALID_EVENT /run/facets/errorMessage/stackTrace: must be string": 7,
      "INVALID_EVENT /inputs/N/facets/documentation/contentType: must be string": 4,
      // The proxy's deliberately invalid events.
      "INVALID_EVENT /job/name: is required and missing": 1,
      "INVALID_EVENT /run/facets/parent/run: is required and missing": 1,
      "INVALID_EVENT /run/facets/parent/run/runId: is required and missing": 1,
      "INVALID_EVENT /outputs/N/facets/ownership/owners/N/name: is required and missing": 1,
      "INVALID_EVENT /job/facets/ownership/owners/N/name: is required and missing": 1,
      "INVALID_EVENT /inputs/N/inputFacets/dataQualityMetrics/columnMetrics: is required and missing": 2,
      "INVALID_EVENT /inputs/N/facets/schema/fields/N/description: must be string": 1,
      "INVALID_EVENT /outputs/N/outputFacets/outputStatistics/rowCount: must be integer": 1,
    });

    // Values that break only a `format` are stored as sent, each noted as a warning of its event.
    expect(warned).toEqual({
      // dataSource.uri "bigquery", "file", "string": not URIs.
      'FORMAT /inputs/N/facets/dataSource/uri: must match format "uri"': 8,
      'FORMAT /outputs/N/facets/dataSource/uri: must match format "uri"': 9,
      // nominalStartTime and nominalEndTime "2020-01-01": a date, not a date-time.
      'FORMAT /run/facets/nominalTime/nominalStartTime: must match format "date-time"': 1,
      'FORMAT /run/facets/nominalTime/nominalEndTime: must match format "date-time"': 1,
    });

    // A refused event writes nothing: sent again alone, it is refused the same way and every table count stays.
    for (const { event, error } of refused) {
      const before = await tableCounts(t);
      const answer = await postEvent(t, event);
      expect(answer.status).toBe(400);
      expect(answer.json.error).toEqual(error);
      expect(await tableCounts(t)).toEqual(before);
    }

    // A stored event is kept exactly as it was sent, under its run.
    const byRun = new Map<string, Record<string, unknown>[]>();
    for (const { runId, event } of stored) byRun.set(runId, [...(byRun.get(runId) ?? []), event]);
    const counts = await tableCounts(t);
    expect(counts.openLineageEvents).toBe(501);
    for (const [runId, sent] of byRun) {
      const res = await t.gql(`query($runId: ID!) { openLineageEvents(runId: $runId, first: 500) { edges { node { event } } } }`, { runId });
      expect(res.errors).toBeUndefined();
      expect(res.data!.openLineageEvents.edges.map((e: any) => e.node.event)).toEqual(sent);
    }
    // One execution per run (and per parent a child names), each run's job an operation.
    const runs = await t.app.database.prisma.openLineageRun.findMany({ where: { events: { gt: 0 } } });
    expect(runs).toHaveLength(byRun.size);
  }, 600_000);
});
