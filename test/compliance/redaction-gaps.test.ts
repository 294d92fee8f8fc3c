import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { ingest, latestVersionId } from "../support/compliance";
import { dataset, runEvent } from "../support/openlineage";

/**
 * What a tagged column's lineage and runs say about the data is guarded like the column's own
 * details: a column edge's description (the transformation, often the expression itself), and the
 * params and failure of a run that used or produced a tagged column (an OpenLineage run's SQL, its
 * error message and stack trace) are null without the clearance, marked in `redacted`, left out of
 * PROV-JSON and of evidence documents — whose sha256 is then that of what the viewer gets.
 */
describe("redaction of column edges and of the runs of tagged data", () => {
  let t: TokenTestApp;
  let analyst: string;
  let officer: string;
  let contacts: string;
  const runId = "01964b9e-8c1c-7a4e-9d0c-3c2f8b2a6f11";

  beforeAll(async () => {
    t = await createTokenTestApp();
    analyst = await t.issue(["read"], { name: "analyst" });
    officer = await t.issue(["read", "clearance:PII"], { name: "privacy-officer" });
    await ingest(t, runEvent({ job: { namespace: "crm", name: "extract" }, outputs: [dataset("crm", "customers", { schema: { fields: [{ name: "email" }] } })] }));
    expect((await t.gql(`mutation { tagColumn(input: { column: { namespace: "crm", name: "customers", field: "email" }, tag: "PII", reason: "contact data" }) { created } }`)).errors).toBeUndefined();
    await ingest(
      t,
      runEvent({
        runId,
        eventType: "FAIL",
        job: { namespace: "crm", name: "mask", facets: { sql: { _producer: "https://x", _schemaURL: "https://x/SQLJobFacet.json", query: "SELECT lower(email) FROM customers WHERE email = 'ann@example.com'" } } },
        run: { runId, facets: { errorMessage: { _producer: "https://x", _schemaURL: "https://x/ErrorMessageRunFacet.json", message: "bad value 'ann@example.com'", programmingLanguage: "sql", stackTrace: "at row ann@example.com" } } },
        inputs: [dataset("crm", "customers")],
        outputs: [
          dataset("crm", "contacts", {
            schema: { fields: [{ name: "email_lower" }] },
            columnLineage: {
              _producer: "https://x",
              _schemaURL: "https://x/ColumnLineageDatasetFacet.json",
              fields: { email_lower: { inputFields: [{ namespace: "crm", name: "customers", field: "email", transformations: [{ type: "DIRECT", subtype: "TRANSFORMATION", description: "lower(email)" }] }] } },
            },
          }),
        ],
      }),
    );
    contacts = await latestVersionId(t, "crm", "contacts");
  });
  afterAll(() => t.close());

  const EDGE = "description redacted";
  const EDGES = `{
    dataset(namespace: "crm", name: "contacts") { columns { upstream { ${EDGE} } } }
    columnLineage(namespace: "crm", name: "contacts", field: "email_lower") { edges { ${EDGE} } provJson }
    execution(runId: "run_${runId}") { columnEdges { ${EDGE} } }
  }`;

  test("a column edge's description: null and marked without clearance — in columns' upstream, columnLineage's edges and its PROV-JSON, and the run's columnEdges", async () => {
    const hidden = { description: null, redacted: ["description"] };
    const answer = await t.gqlAs(analyst, EDGES);
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.dataset.columns[0].upstream).toEqual([hidden]);
    expect(answer.data!.columnLineage.edges).toEqual([hidden]);
    expect(answer.data!.execution.columnEdges).toEqual([hidden]);
    const [derivation] = Object.values(answer.data!.columnLineage.provJson.wasDerivedFrom) as Record<string, unknown>[];
    expect(derivation["provgraph:description"]).toBeUndefined();
    expect(derivation["provgraph:redacted"]).toEqual(["provgraph:description"]);

    const shown = await t.gqlAs(officer, EDGES);
    expect(shown.data!.columnLineage.edges).toEqual([{ description: "lower(email)", redacted: [] }]);
    expect((Object.values(shown.data!.columnLineage.provJson.wasDerivedFrom)[0] as Record<string, unknown>)["provgraph:description"]).toBe("lower(email)");
  });

  test("the failing run that read the tagged column: its params (the SQL) and failure are null and marked without clearance", async () => {
    const query = `{ execution(runId: "run_${runId}") { status params failure { message programmingLanguage stackTrace } redacted } }`;
    expect((await t.gqlAs(analyst, query)).data!.execution).toEqual({ status: "FAILED", params: null, failure: null, redacted: ["params", "failure"] });
    expect((await t.gqlAs(officer, query)).data!.execution).toEqual({
      status: "FAILED",
      params: { sql: { query: "SELECT lower(email) FROM customers WHERE email = 'ann@example.com'" } },
      failure: { message: "bad value 'ann@example.com'", programmingLanguage: "sql", stackTrace: "at row ann@example.com" },
      redacted: [],
    });
  });

  test("evidence: the run's params are left out of the package, its document, the route's download and their sha256, and the document verifies for its viewer", async () => {
    const query = `{ evidencePackage(artifactId: "${contacts}") { runs { runId params redacted } document sha256 } }`;
    const viewed = (await t.gqlAs(analyst, query)).data!.evidencePackage;
    const full = (await t.gqlAs(officer, query)).data!.evidencePackage;
    expect(viewed.runs.find((r: { runId: string }) => r.runId === `run_${runId}`)).toEqual({ runId: `run_${runId}`, params: null, redacted: ["params"] });
    expect(full.runs.find((r: { runId: string }) => r.runId === `run_${runId}`)).toEqual({ runId: `run_${runId}`, params: { sql: { query: expect.stringContaining("ann@example.com") } }, redacted: [] });
    expect(JSON.stringify(viewed.document)).not.toContain("ann@example.com");
    expect(viewed.sha256).not.toBe(full.sha256);

    const download = await t.send({ token: analyst, path: `/api/v1/evidence/${contacts}` });
    expect(download.text).not.toContain("ann@example.com");
    expect(download.headers.get("etag")).toBe(`"sha256:${viewed.sha256}"`);
    expect(download.json).toEqual(viewed.document);

    const verify = `query($document: JSON!) { verifyEvidence(document: $document) { valid differences } }`;
    expect((await t.gqlAs(analyst, verify, { document: viewed.document })).data!.verifyEvidence).toEqual({ valid: true, differences: [] });
    expect((await t.gqlAs(officer, verify, { document: full.document })).data!.verifyEvidence).toEqual({ valid: true, differences: [] });
    const index = full.document.runs.findIndex((r: { runId: string }) => r.runId === `run_${runId}`);
    expect((await t.gqlAs(officer, verify, { document: viewed.document })).data!.verifyEvidence).toEqual({ valid: false, differences: [`/runs/${index}/params`, `/runs/${index}/redacted`] });
  });
});
