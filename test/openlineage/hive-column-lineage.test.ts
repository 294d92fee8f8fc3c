import { fixtureFiles, postEvent, withBaseFields } from "../support/openlineage";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * The Hive hook's cll* events carry the richest column lineage of the fixtures (DIRECT/INDIRECT,
 * subtypes, masking, CTEs, unions, window functions, dataset-wide dependencies). Each query is a
 * START template (with a runId placeholder) and a COMPLETE template without a runId; the COMPLETE
 * is given its START's runId, as the hook would send it. The column edges stored for the run must be
 * exactly the facet's: one per (output field, input field, transformation), dataset-wide entries
 * with no target field.
 */
interface EdgeView {
  source: string;
  sourceField: string;
  target: string;
  targetField: string | null;
  type: string;
  subtype: string | null;
  description: string | null;
  masking: boolean;
}

const COLUMN_EDGES = `query($runId: ID!) { execution(runId: $runId) { status columnEdges {
  source { field artifact { dataset { namespace name } } } target { field artifact { dataset { namespace name } } }
  type subtype description masking datasetWide } } }`;

/** The edges an event's columnLineage facets say, one per transformation. */
function edgesIn(event: Record<string, any>): EdgeView[] {
  const edges: EdgeView[] = [];
  for (const output of event.outputs ?? []) {
    const facet = output.facets?.columnLineage;
    if (!facet) continue;
    const target = `${output.namespace}/${output.name}`;
    const add = (dependency: any, targetField: string | null) => {
      for (const t of dependency.transformations) {
        edges.push({ source: `${dependency.namespace}/${dependency.name}`, sourceField: dependency.field, target, targetField, type: t.type, subtype: t.subtype ?? null, description: t.description ?? null, masking: t.masking === true });
      }
    };
    for (const [field, entry] of Object.entries<any>(facet.fields)) for (const dependency of entry.inputFields) add(dependency, field);
    for (const dependency of facet.dataset ?? []) add(dependency, null);
  }
  return edges;
}

const sorted = (edges: EdgeView[]) => [...new Map(edges.map((e) => [JSON.stringify(e), e])).values()].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

describe("Hive column lineage (cll* events), field by field", () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  const files = fixtureFiles().filter((f) => /hive.*__cll.*Start\.json$/.test(f.file));
  it("has the 22 Hive cll queries", () => expect(files).toHaveLength(22));

  it.each(files.map((f) => [f.file.replace(/.*__cll(.*)Start\.json$/, "$1"), f] as const))("%s: the stored column edges are the facet's", async (_name, start) => {
    const complete = fixtureFiles().find((f) => f.file === start.file.replace("Start.json", "Complete.json"))!;
    const [startEvent] = start.events.map(withBaseFields);
    const [completeTemplate] = complete.events;
    const completeEvent = withBaseFields({ ...completeTemplate, run: { ...completeTemplate.run, runId: startEvent.run.runId }, eventTime: "2026-03-11T02:15:00.000Z" });
    for (const event of [startEvent, completeEvent]) {
      const answer = await postEvent(t, event);
      expect({ status: answer.status, body: answer.json }).toEqual({ status: 201, body: expect.objectContaining({ status: "STORED" }) });
    }
    const expected = sorted([...edgesIn(startEvent), ...edgesIn(completeEvent)]);
    expect(expected.length).toBeGreaterThan(0);
    const res = await t.gql(COLUMN_EDGES, { runId: startEvent.run.runId });
    expect(res.errors).toBeUndefined();
    expect(res.data!.execution.status).toBe("COMPLETED");
    const stored = res.data!.execution.columnEdges.map((e: any) => ({
      source: `${e.source.artifact.dataset.namespace}/${e.source.artifact.dataset.name}`,
      sourceField: e.source.field,
      target: `${e.target.artifact.dataset.namespace}/${e.target.artifact.dataset.name}`,
      targetField: e.target.field,
      type: e.type,
      subtype: e.subtype,
      description: e.description,
      masking: e.masking,
    }));
    expect(stored).toHaveLength(expected.length);
    expect(sorted(stored)).toEqual(expected);
    for (const e of res.data!.execution.columnEdges) expect(e.datasetWide).toBe(e.target.field === null);
  });
});
