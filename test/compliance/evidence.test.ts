import { createHash } from "node:crypto";
import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { allCounts, hopEvent, ingest, latestVersionId } from "../support/compliance";
import { draft, recordOk, registerOperation } from "../support/recording";
import { errorCodes } from "../support/test-app";

/**
 * Evidence packages: the backward closure with every run's four pins and the acceptance gate.
 * Provenance is immutable, so each variant (one image digest missing, one step non-deterministic,
 * one step not saying, one input without a version) is a chain of its own, recorded beside the
 * fully pinned one.
 */
const PACKAGE = `query($artifactId: ID, $namespace: String, $name: String, $field: String, $asOf: DateTime) {
  evidencePackage(artifactId: $artifactId, namespace: $namespace, name: $name, field: $field, asOf: $asOf) {
    root { artifactId field } provable truncated
    violations { rule runId artifactIds inputs }
    nodes { artifactId field depth }
    runs { runId pins { imageDigest deterministic } violations }
    document sha256 } }`;
const VERIFY = `query($document: JSON!) { verifyEvidence(document: $document) { valid documentSha256 currentSha256 differences } }`;

const PINNED = { inputVersions: { source: "s3://raw/cards@v1" }, codeVersion: "9f2c1ab", imageDigest: "sha256:4d7e0b31aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", deterministic: true };

describe("evidence packages", () => {
  let t: TokenTestApp;
  let reader: string;
  beforeAll(async () => {
    t = await createTokenTestApp();
    reader = await t.issue(["read"], { name: "auditor" });
    await registerOperation(t, { name: "extract", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    await registerOperation(t, { name: "refine", version: "1", kind: "CREATOR", inputs: [{ role: "in", artifactType: "csv" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["in"] } }] });
  });
  afterAll(() => t.close());

  const gql = async (query: string, variables: Record<string, unknown>, token = reader) => {
    const res = await t.gqlAs(token, query, variables);
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data!;
  };

  /** raw (extract) → clean (refine, step 1) → figure (refine, step 2); `pins` per refine step. Returns ids and run ids. */
  async function chain(prefix: string, pins: [Record<string, unknown>, Record<string, unknown>]) {
    const raw = await recordOk(t, { operation: "extract", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [draft(`${prefix}.csv`)] }], pins: PINNED });
    const step1 = await recordOk(t, { operation: "refine", operationVersion: "1", inputs: [{ role: "in", artifactIds: [raw.outputIds[`${prefix}.csv`]] }], outputs: [{ role: "out", artifacts: [draft(`${prefix}.parquet`)] }], pins: pins[0] });
    const clean = step1.outputIds[`${prefix}.parquet`];
    const step2 = await recordOk(t, { operation: "refine", operationVersion: "1", inputs: [{ role: "in", artifactIds: [clean] }], outputs: [{ role: "out", artifacts: [draft(`${prefix}.bin`)] }], pins: pins[1] });
    return { raw: raw.outputIds[`${prefix}.csv`], clean, figure: step2.outputIds[`${prefix}.bin`], run1: step1.runId as string, run2: step2.runId as string };
  }
  const pkg = async (artifactId: string) => (await gql(PACKAGE, { artifactId })).evidencePackage;

  test("a fully pinned chain is provable: its closure down to the raw source, every run with its pins, no violation", async () => {
    const c = await chain("pinned", [PINNED, PINNED]);
    const p = await pkg(c.figure);
    expect(p).toMatchObject({ root: { artifactId: c.figure, field: null }, provable: true, truncated: false, violations: [] });
    expect(p.nodes).toEqual([
      { artifactId: c.figure, field: null, depth: 0 },
      { artifactId: c.clean, field: null, depth: 1 },
      { artifactId: c.raw, field: null, depth: 2 },
    ]);
    expect(p.runs).toEqual([c.run1, c.run2].sort().map((runId) => ({ runId, pins: { imageDigest: "sha256:4d7e0b31aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", deterministic: true }, violations: [] })));
  });

  test("one run without an image digest: unprovable, exactly that run named with what it produced", async () => {
    const { imageDigest: _drop, ...noDigest } = PINNED;
    const c = await chain("nodigest", [noDigest, PINNED]);
    const p = await pkg(c.figure);
    expect(p.provable).toBe(false);
    expect(p.violations).toEqual([{ rule: "MISSING_IMAGE_DIGEST", runId: c.run1, artifactIds: [c.clean], inputs: [] }]);
  });

  test("a non-deterministic step anywhere in the closure: unprovable, that step named; not saying counts as not provable", async () => {
    const flagged = await chain("nondet", [PINNED, { ...PINNED, deterministic: false }]);
    expect((await pkg(flagged.figure)).violations).toEqual([{ rule: "NON_DETERMINISTIC", runId: flagged.run2, artifactIds: [flagged.figure], inputs: [] }]);
    const { deterministic: _unsaid, ...unknown } = PINNED;
    const silent = await chain("unknown", [unknown, PINNED]);
    const p = await pkg(silent.figure);
    expect(p.provable).toBe(false);
    expect(p.violations).toEqual([{ rule: "DETERMINISM_UNKNOWN", runId: silent.run1, artifactIds: [silent.clean], inputs: [] }]);
    // Deep in the closure: the clean artifact's own package names the same run.
    expect((await pkg(silent.clean)).violations).toEqual([{ rule: "DETERMINISM_UNKNOWN", runId: silent.run1, artifactIds: [silent.clean], inputs: [] }]);
  });

  /** OpenLineage: raw.cards (version v1) → cards.clean, read with or without the version facet; column lineage on amount. */
  async function lineageChain(ns: string, versioned: boolean) {
    const runFacets = { codeVersion: { gitSha: "9f2c1ab", image: "sha256:4d7e0b31aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" }, provgraph_determinism: { deterministic: true } };
    const load = hopEvent(ns, "load", [], { name: "raw.cards", fields: ["amount"], facets: { version: { datasetVersion: "v1" } } }, [], { runFacets });
    const clean = hopEvent(ns, "clean", [{ name: "raw.cards", fields: ["amount"], facets: versioned ? { version: { datasetVersion: "v1" } } : {} }], { name: "cards.clean", fields: ["amount_eur"] }, [["amount_eur", "raw.cards", "amount", "DIRECT"]], { runFacets });
    await ingest(t, load, clean);
    return { raw: await latestVersionId(t, ns, "raw.cards"), clean: await latestVersionId(t, ns, "cards.clean"), runId: `run_${(clean.run as { runId: string }).runId}` };
  }

  test("an input without a version: unprovable, that run and that input named; with the version pinned the same chain is provable (by namespace, name and field)", async () => {
    const pinned = await lineageChain("ev-pinned", true);
    const ok = (await gql(PACKAGE, { namespace: "ev-pinned", name: "cards.clean", field: "amount_eur" })).evidencePackage;
    expect(ok).toMatchObject({ root: { artifactId: pinned.clean, field: "amount_eur" }, provable: true, violations: [] });
    expect(ok.nodes).toEqual([
      { artifactId: pinned.clean, field: "amount_eur", depth: 0 },
      { artifactId: pinned.raw, field: "amount", depth: 1 },
    ]);
    const loose = await lineageChain("ev-loose", false);
    const p = (await gql(PACKAGE, { namespace: "ev-loose", name: "cards.clean", field: "amount_eur" })).evidencePackage;
    expect(p.provable).toBe(false);
    expect(p.violations).toEqual([{ rule: "MISSING_INPUT_VERSION", runId: loose.runId, artifactIds: [loose.clean], inputs: [loose.raw] }]);
  });

  test("a filed document (also from GET /api/v1/evidence/<artifactId>, with its sha256) re-verifies, and fails to after the store changes", async () => {
    const c = await chain("filed", [PINNED, PINNED]);
    const p = await pkg(c.figure);
    const download = await t.send({ token: reader, path: `/api/v1/evidence/${c.figure}` });
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(createHash("sha256").update(download.text, "utf8").digest("hex")).toBe(p.sha256);
    expect(download.headers.get("etag")).toBe(`"sha256:${p.sha256}"`);
    expect(download.headers.get("x-provgraph-provable")).toBe("true");
    expect(download.json).toEqual(p.document);

    const filed = download.json;
    expect((await gql(VERIFY, { document: filed })).verifyEvidence).toEqual({ valid: true, documentSha256: p.sha256, currentSha256: p.sha256, differences: [] });
    // A document altered after filing does not verify.
    const altered = structuredClone(filed);
    altered.runs[0].pins.imageDigest = "sha256:ffff";
    expect((await gql(VERIFY, { document: altered })).verifyEvidence).toMatchObject({ valid: false, currentSha256: p.sha256, differences: ["/runs/0/pins/imageDigest"] });
    // One filed as of now stays valid whatever is recorded later.
    const asOf = new Date().toISOString();
    const pinnedInTime = (await gql(PACKAGE, { artifactId: c.figure, asOf })).evidencePackage;

    // The store changes: the figure is recorded again, derived from another source (a new derivation inside the closure).
    const other = await recordOk(t, { operation: "extract", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [draft("filed-other.csv")] }], pins: PINNED });
    await recordOk(t, { operation: "refine", operationVersion: "1", inputs: [{ role: "in", artifactIds: [other.outputIds["filed-other.csv"]] }], outputs: [{ role: "out", artifacts: [draft("filed.bin")] }], lineage: [{ output: "filed.bin", sources: [other.outputIds["filed-other.csv"]] }], pins: PINNED });
    const now = (await gql(VERIFY, { document: filed })).verifyEvidence;
    expect(now.valid).toBe(false);
    expect(now.documentSha256).toBe(p.sha256);
    expect(now.currentSha256).not.toBe(p.sha256);
    expect(now.differences.length).toBeGreaterThan(0);
    expect((await gql(VERIFY, { document: pinnedInTime.document })).verifyEvidence).toEqual({ valid: true, documentSha256: pinnedInTime.sha256, currentSha256: pinnedInTime.sha256, differences: [] });
  });

  test("bad requests are typed errors naming the argument; the route answers them as JSON with their code; reading writes nothing", async () => {
    const before = await allCounts(t);
    const codes = async (variables: Record<string, unknown>) => {
      const res = await t.gqlAs(reader, PACKAGE, variables);
      return [errorCodes(res), res.errors?.[0]?.extensions?.field];
    };
    expect(await codes({ artifactId: "nope" })).toEqual([["INVALID_ID"], "artifactId"]);
    expect(await codes({ artifactId: "art_0000000000000000000000000000000000000000" })).toEqual([["NOT_FOUND"], "artifactId"]);
    expect(await codes({})).toEqual([["INVALID_ARGUMENT"], "artifactId"]);
    expect(await codes({ namespace: "ev-pinned" })).toEqual([["INVALID_ARGUMENT"], "name"]);
    expect(await codes({ namespace: "ev-pinned", name: "cards.clean", field: "nope" })).toEqual([["NOT_FOUND"], "field"]);
    const verify = await t.gqlAs(reader, VERIFY, { document: { format: "other/1" } });
    expect(errorCodes(verify)).toEqual(["INVALID_ARGUMENT"]);
    expect(verify.errors![0].extensions!.field).toBe("document");
    const bad = await t.send({ token: reader, path: "/api/v1/evidence/nope" });
    expect([bad.status, bad.json.error.code]).toEqual([400, "INVALID_ID"]);
    const missing = await t.send({ token: reader, path: "/api/v1/evidence/art_0000000000000000000000000000000000000000" });
    expect([missing.status, missing.json.error.code]).toEqual([404, "NOT_FOUND"]);
    const anonymous = await t.send({ token: null, path: "/api/v1/evidence/art_0000000000000000000000000000000000000000" });
    expect(anonymous.status).toBe(401);
    expect({ ...(await allCounts(t)), auditEvents: before.auditEvents }).toEqual(before);
  });
});
