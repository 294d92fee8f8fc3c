import { execFile } from "node:child_process";
import { createHash, createPublicKey, generateKeyPairSync, verify } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { allCounts, ERASURE_SECRET, hopEvent, ingest, latestVersionId } from "../support/compliance";
import { runEvent } from "../support/openlineage";
import { draft, RECORD_EXECUTION, recordOk, registerOperation } from "../support/recording";
import { errorCodes } from "../support/test-app";

/**
 * Evidence a regulator can rely on:
 *  - as of an instant means as recorded by that instant: a package filed as of T stays valid (and
 *    its signature with it) after later events — a run reporting itself non-deterministic, inputs
 *    reported late;
 *  - only a content digest pins an image;
 *  - a version is selected by its run's business date (nominalTime, or a declared parameter);
 *  - documents are signed (Ed25519, key from configuration), checkable with only the document's JWS
 *    and the public key — by node:crypto alone, or scripts/verify-signature.mjs — and keys rotate;
 *  - raw sources are marked apart from opaque steps.
 */
const PACKAGE = `query($artifactId: ID, $namespace: String, $name: String, $field: String, $asOf: DateTime, $businessDate: String) {
  evidencePackage(artifactId: $artifactId, namespace: $namespace, name: $name, field: $field, asOf: $asOf, businessDate: $businessDate) {
    root { artifactId field dataset { version } } asOf businessDate provable
    violations { rule runId artifactIds inputs }
    nodes { artifactId field depth opaque rawSource dataset { name version } }
    runs { runId pins { imageDigest deterministic inputVersions } inputs { artifactId } violations }
    document sha256 signature { algorithm keyId contentType jws } } }`;
const VERIFY = `query($document: JSON, $jws: String) { verifyEvidence(document: $document, jws: $jws) { valid documentSha256 currentSha256 differences signature { valid keyId contentType reason } } }`;
const VERIFY_SIGNATURE = `query($jws: String!) { verifySignature(jws: $jws) { valid keyId contentType reason } }`;

const DIGEST = `sha256:${"4d7e0b31".repeat(8)}`;
const PINS = { codeVersion: { gitSha: "9f2c1ab", image: DIGEST }, provgraph_determinism: { deterministic: true } };

const pem = (key: { export(o: object): string | Buffer }) => String(key.export({ format: "pem", type: "pkcs8" }));
const signingKey = () => generateKeyPairSync("ed25519").privateKey;

/** positions@4217 and fx_rates@88 → risk.exposure_daily.exposure_eur (the seed's event), with a business date. */
function exposure(ns: string, opts: { businessDate?: string; version?: string; image?: string } = {}) {
  return hopEvent(
    ns,
    "risk.build_exposure_daily",
    [{ name: "core.positions", fields: ["notional", "book_id"], facets: { version: { datasetVersion: "4217" } } }],
    { name: "risk.exposure_daily", fields: ["exposure_eur"], facets: opts.version ? { version: { datasetVersion: opts.version } } : {} },
    [
      ["exposure_eur", "core.positions", "notional", "DIRECT"],
      ["exposure_eur", "core.positions", "book_id", "INDIRECT"],
    ],
    { runFacets: { ...PINS, codeVersion: { gitSha: "9f2c1ab", image: opts.image ?? DIGEST }, ...(opts.businessDate ? { nominalTime: { nominalStartTime: `${opts.businessDate}T00:00:00Z` } } : {}) } },
  );
}
const positions = (ns: string) => hopEvent(ns, "load_positions", [], { name: "core.positions", fields: ["notional", "book_id"], facets: { version: { datasetVersion: "4217" } } }, [], { runFacets: PINS });

describe("evidence a regulator can rely on", () => {
  let t: TokenTestApp;
  let key: ReturnType<typeof signingKey>;
  let auditor: string;
  beforeAll(async () => {
    key = signingKey();
    t = await createTokenTestApp({ env: { PROVGRAPH_SIGNING_KEY: pem(key), PROVGRAPH_ERASURE_SECRET: ERASURE_SECRET } });
    auditor = await t.issue(["read"], { name: "auditor" });
  });
  afterAll(() => t.close());

  const gql = async (query: string, variables: Record<string, unknown> = {}, token = auditor) => {
    const res = await t.gqlAs(token, query, variables);
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data!;
  };
  const pkg = async (variables: Record<string, unknown>) => (await gql(PACKAGE, variables)).evidencePackage;

  test("a package filed as of T stays valid, signature included, after a run in its closure reports itself non-deterministic and inputs are reported late", async () => {
    const run = exposure("asof");
    await ingest(t, positions("asof"), run);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const asOf = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const filed = await pkg({ namespace: "asof", name: "risk.exposure_daily", field: "exposure_eur", asOf });
    expect(filed).toMatchObject({ provable: true, violations: [], asOf });

    // Late: an OTHER event for the run says it was not deterministic after all, and another reports an input (and column lineage from it).
    const runId = (run.run as { runId: string }).runId;
    await ingest(
      t,
      runEvent({ eventType: "OTHER", eventTime: "2026-03-11T03:00:00.000Z", run: { runId, facets: { provgraph_determinism: { deterministic: false } } }, job: run.job }),
      runEvent({
        eventType: "OTHER",
        eventTime: "2026-03-11T03:00:01.000Z",
        run: { runId, facets: {} },
        job: run.job,
        inputs: [{ namespace: "asof", name: "ref.fx_rates", facets: { version: { datasetVersion: "88" }, schema: { fields: [{ name: "rate" }] } } }],
        outputs: [{ namespace: "asof", name: "risk.exposure_daily", facets: { columnLineage: { fields: { exposure_eur: { inputFields: [{ namespace: "asof", name: "ref.fx_rates", field: "rate", transformations: [{ type: "DIRECT", subtype: "TRANSFORMATION" }] }] } } } } }],
      }),
    );
    const now = await pkg({ namespace: "asof", name: "risk.exposure_daily", field: "exposure_eur" });
    expect(now.violations.map((v: any) => v.rule)).toEqual(["NON_DETERMINISTIC"]);
    expect(now.nodes.map((n: any) => `${n.dataset.name}.${n.field}`)).toContain("ref.fx_rates.rate");

    // The same question as of T gives the same document, byte for byte; the filed one verifies, and so does its signature.
    const again = await pkg({ namespace: "asof", name: "risk.exposure_daily", field: "exposure_eur", asOf });
    expect(again.sha256).toBe(filed.sha256);
    expect(again.signature.jws).toBe(filed.signature.jws);
    expect((await gql(VERIFY, { document: filed.document, jws: filed.signature.jws })).verifyEvidence).toEqual({
      valid: true,
      documentSha256: filed.sha256,
      currentSha256: filed.sha256,
      differences: [],
      signature: { valid: true, keyId: filed.signature.keyId, contentType: "provgraph-evidence/2", reason: null },
    });
    // The JWS alone carries the document.
    expect((await gql(VERIFY, { jws: filed.signature.jws })).verifyEvidence).toMatchObject({ valid: true, signature: { valid: true } });
  });

  test("raw sources (roots, pinned by their own version) are marked apart from opaque steps' outputs", async () => {
    await ingest(t, positions("raw"), hopEvent("raw", "udf", [{ name: "core.positions", fields: ["notional", "book_id"], facets: { version: { datasetVersion: "4217" } } }], { name: "udf.scores", fields: ["score"] }, [], { runFacets: PINS }));
    const p = await pkg({ namespace: "raw", name: "udf.scores", field: "score" });
    const scores = await latestVersionId(t, "raw", "udf.scores");
    const raw = await latestVersionId(t, "raw", "core.positions");
    expect(p.nodes).toEqual([
      { artifactId: scores, field: "score", depth: 0, opaque: true, rawSource: false, dataset: { name: "udf.scores", version: expect.any(String) } },
      { artifactId: raw, field: null, depth: 1, opaque: false, rawSource: true, dataset: { name: "core.positions", version: "4217" } },
    ]);
    const columns = await pkg({ namespace: "asof", name: "risk.exposure_daily", field: "exposure_eur" });
    expect(columns.nodes.filter((n: any) => n.dataset.name === "core.positions").map((n: any) => [n.field, n.opaque, n.rawSource])).toEqual([
      ["book_id", false, true],
      ["notional", false, true],
    ]);
  });

  test("only a content digest pins an image: a tag or an elided digest is a violation naming the run; name@sha256:<64 hex> is provable", async () => {
    await registerOperation(t, { name: "publish", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    const gate = async (image: string) => {
      const run = await recordOk(t, { operation: "publish", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [draft(`figure-${image.length}-${image.slice(-6)}.csv`)] }], pins: { inputVersions: { source: "s3://raw@v1" }, codeVersion: "9f2c1ab", imageDigest: image, deterministic: true } });
      const id = Object.values(run.outputIds)[0] as string;
      // The output has no edge: its closure is itself; its own run is judged through a derived artifact.
      await registerOperation(t, { name: "derive", version: "1", kind: "CREATOR", inputs: [{ role: "in", artifactType: "csv" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["in"] } }] });
      const derived = await recordOk(t, { operation: "derive", operationVersion: "1", inputs: [{ role: "in", artifactIds: [id] }], outputs: [{ role: "out", artifacts: [draft(`figure-${image.length}-${image.slice(-6)}.bin`)] }], pins: { codeVersion: "9f2c1ab", imageDigest: image, deterministic: true } });
      const p = await pkg({ artifactId: Object.values(derived.outputIds)[0] });
      return { provable: p.provable, violations: p.violations.map((v: any) => [v.rule, v.runId === derived.runId]) };
    };
    expect(await gate("registry.example/risk:latest")).toEqual({ provable: false, violations: [["IMAGE_NOT_DIGEST", true]] });
    expect(await gate("sha256:4d7e0b31...9c1")).toEqual({ provable: false, violations: [["IMAGE_NOT_DIGEST", true]] });
    expect(await gate(`sha256:${"AB".repeat(32)}`)).toEqual({ provable: false, violations: [["IMAGE_NOT_DIGEST", true]] });
    expect(await gate(`registry.example/risk@${DIGEST}`)).toEqual({ provable: true, violations: [] });
    expect(await gate(DIGEST)).toEqual({ provable: true, violations: [] });
  });

  test("business date: the newest version a run of that date produced (OpenLineage nominalTime), also as of an instant; a date without a version is NOT_FOUND naming businessDate", async () => {
    await ingest(t, positions("bd"), exposure("bd", { businessDate: "2026-02-27", version: "d27" }), exposure("bd", { businessDate: "2026-02-28", version: "d28" }));
    const between = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    // A rerun for 28 February (a correction), then the next day's run.
    await ingest(t, exposure("bd", { businessDate: "2026-02-28", version: "d28-rerun" }), exposure("bd", { businessDate: "2026-03-01", version: "d01" }));
    const versionOf = async (variables: Record<string, unknown>) => {
      const p = await pkg({ namespace: "bd", name: "risk.exposure_daily", field: "exposure_eur", ...variables });
      return [p.root.dataset.version, p.businessDate];
    };
    expect(await versionOf({})).toEqual(["d01", null]);
    expect(await versionOf({ businessDate: "2026-02-28" })).toEqual(["d28-rerun", "2026-02-28"]);
    expect(await versionOf({ businessDate: "2026-02-28", asOf: between })).toEqual(["d28", "2026-02-28"]);
    expect(await versionOf({ businessDate: "2026-02-27" })).toEqual(["d27", "2026-02-27"]);
    // A filed business-date package re-verifies.
    const filed = await pkg({ namespace: "bd", name: "risk.exposure_daily", field: "exposure_eur", businessDate: "2026-02-28", asOf: between });
    expect((await gql(VERIFY, { document: filed.document })).verifyEvidence).toMatchObject({ valid: true });

    const refused = async (variables: Record<string, unknown>) => {
      const res = await t.gqlAs(auditor, PACKAGE, { namespace: "bd", name: "risk.exposure_daily", field: "exposure_eur", ...variables });
      return [errorCodes(res), res.errors?.[0]?.extensions?.field];
    };
    expect(await refused({ businessDate: "2026-01-01" })).toEqual([["NOT_FOUND"], "businessDate"]);
    expect(await refused({ businessDate: "2026-02-29" })).toEqual([["INVALID_ARGUMENT"], "businessDate"]);
    expect(await refused({ businessDate: "28/02/2026" })).toEqual([["INVALID_ARGUMENT"], "businessDate"]);
  });

  test("business date: a recording's parameter the operation declares as its business date; a value that is no date is refused, naming it, and nothing is written", async () => {
    await registerOperation(t, { name: "report", version: "1", kind: "CREATOR", businessDateParam: "asOfDate", inputs: [], outputs: [{ role: "out", artifactType: "table", inferLineageFrom: { inputs: [] } }] });
    const op = await gql(`{ operation(name: "report", version: "1") { businessDateParam } }`);
    expect(op.operation.businessDateParam).toBe("asOfDate");
    const report = (date: string, version: string) =>
      ({ operation: "report", operationVersion: "1", params: { asOfDate: date, region: "EU" }, inputs: [], outputs: [{ role: "out", artifacts: [{ ...draft(`r3-${version}.csv`), dataset: { namespace: "returns", name: "r3", version } }] }] });
    const feb = await recordOk(t, report("2026-02-28", "feb"));
    await recordOk(t, report("2026-03-31T18:00:00+02:00", "mar"));
    const p = await pkg({ namespace: "returns", name: "r3", businessDate: "2026-02-28" });
    expect(p.root).toEqual({ artifactId: Object.values(feb.outputIds)[0], field: null, dataset: { version: "feb" } });
    expect((await pkg({ namespace: "returns", name: "r3", businessDate: "2026-03-31" })).root.dataset.version).toBe("mar");

    const before = await allCounts(t);
    const bad = await t.gqlAs(t.adminToken, RECORD_EXECUTION, { input: report("end of February", "bad") });
    expect(errorCodes(bad)).toEqual(["INVALID_ARGUMENT"]);
    expect(bad.errors![0].extensions!.field).toBe("params.asOfDate");
    expect({ ...(await allCounts(t)), auditEvents: before.auditEvents }).toEqual(before);
  });

  test("the signature checks with only the document's JWS and the public key: node:crypto alone, and scripts/verify-signature.mjs; an altered document does not", async () => {
    const p = await pkg({ namespace: "asof", name: "risk.exposure_daily", field: "exposure_eur" });
    // The key set is public (no token) and names the key the JWS names.
    const keys = await t.send({ token: null, path: "/api/v1/signing-keys" });
    expect(keys.status).toBe(200);
    expect(keys.headers.get("content-type")).toBe("application/jwk-set+json");
    expect(keys.json.keys).toEqual([{ kty: "OKP", crv: "Ed25519", x: expect.any(String), kid: p.signature.keyId, alg: "EdDSA", use: "sig", status: "current", pem: expect.stringMatching(/^-----BEGIN PUBLIC KEY-----/) }]);
    expect(keys.json.keys[0].pem).toBe(String(createPublicKey(key).export({ format: "pem", type: "spki" })));
    const publicPem = (await t.send({ token: null, path: `/api/v1/signing-keys?kid=${p.signature.keyId}&format=pem` })).text;
    // A PEM is one key's: without a kid, with an unknown one, or in a format there is none of, the answer says so.
    const refusals = await Promise.all(["?format=pem", "?format=pem&kid=nope", "?format=xml"].map((query) => t.send({ token: null, path: `/api/v1/signing-keys${query}` })));
    expect(refusals.map((answer) => [answer.status, answer.json.error.code, answer.json.error.field])).toEqual([
      [400, "INVALID_ARGUMENT", "kid"],
      [404, "NOT_FOUND", "kid"],
      [400, "INVALID_ARGUMENT", "format"],
    ]);
    expect(refusals[0].json.error.message).toBe("format=pem answers one key: name it with kid=<kid> (the kids are listed at /api/v1/signing-keys)");

    // What a regulator does by hand: split the JWS, check the signature over header.payload with the public key.
    const [header, payload, signature] = p.signature.jws.split(".");
    expect(JSON.parse(Buffer.from(header, "base64url").toString())).toEqual({ alg: "EdDSA", kid: p.signature.keyId, cty: "provgraph-evidence/2" });
    expect(verify(null, Buffer.from(`${header}.${payload}`), createPublicKey(publicPem), Buffer.from(signature, "base64url"))).toBe(true);
    const document = Buffer.from(payload, "base64url").toString("utf8");
    expect(createHash("sha256").update(document).digest("hex")).toBe(p.sha256);
    expect(JSON.parse(document)).toEqual(p.document);
    // The route serves the same JWS.
    const download = await t.send({ token: auditor, path: `/api/v1/evidence/${p.root.artifactId}?field=exposure_eur&format=jws` });
    expect([download.status, download.headers.get("content-type"), download.text]).toEqual([200, "application/jose", p.signature.jws]);

    // The script, given only the two files.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-verify-"));
    try {
      fs.writeFileSync(path.join(dir, "evidence.jws"), p.signature.jws);
      fs.writeFileSync(path.join(dir, "key.pem"), publicPem);
      fs.writeFileSync(path.join(dir, "keys.json"), keys.text);
      const script = path.resolve(__dirname, "../../scripts/verify-signature.mjs");
      const run = (...args: string[]) => promisify(execFile)(process.execPath, [script, ...args], { cwd: dir }).then(
        ({ stdout }) => ({ code: 0, out: JSON.parse(stdout) }),
        (error: { code: number; stdout: string }) => ({ code: error.code, out: JSON.parse(error.stdout) }),
      );
      expect(await run("evidence.jws", "key.pem", "--payload", "evidence.json")).toEqual({ code: 0, out: { valid: true, keyId: p.signature.keyId, contentType: "provgraph-evidence/2", sha256: p.sha256, reason: null } });
      expect(fs.readFileSync(path.join(dir, "evidence.json"), "utf8")).toBe(document);
      expect((await run("evidence.jws", "keys.json")).out.valid).toBe(true);
      // One changed figure in the payload: the signature no longer matches.
      const altered = JSON.parse(document);
      altered.provable = !altered.provable;
      const forged = `${header}.${Buffer.from(JSON.stringify(altered)).toString("base64url")}.${signature}`;
      fs.writeFileSync(path.join(dir, "forged.jws"), forged);
      expect(await run("forged.jws", "key.pem")).toMatchObject({ code: 1, out: { valid: false } });
      expect((await gql(VERIFY_SIGNATURE, { jws: forged })).verifySignature).toMatchObject({ valid: false, keyId: p.signature.keyId });
      // A valid signature over another document than the one given is not this document's.
      expect((await gql(VERIFY, { document: altered, jws: p.signature.jws })).verifyEvidence.signature).toEqual({ valid: false, keyId: p.signature.keyId, contentType: "provgraph-evidence/2", reason: "the signature is valid, but for another document than the one given" });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("erasure plans are signed the same way", async () => {
    const plan = (await gql(`mutation { erasurePlan(subjectKey: "crm-cust-000417") { document signature { keyId contentType jws } } }`, {}, t.adminToken)).erasurePlan;
    const [, payload] = plan.signature.jws.split(".");
    expect(JSON.parse(Buffer.from(payload, "base64url").toString())).toEqual(plan.document);
    expect((await gql(VERIFY_SIGNATURE, { jws: plan.signature.jws })).verifySignature).toEqual({ valid: true, keyId: plan.signature.keyId, contentType: "provgraph-erasure-plan/1", reason: null });
  });

  test("key rotation: a server with a new key lists the previous public key and still verifies what the old key signed; without it, it names the unknown key", async () => {
    const p = await pkg({ namespace: "asof", name: "risk.exposure_daily", field: "exposure_eur" });
    const oldX = (createPublicKey(key).export({ format: "jwk" }) as { x: string }).x;
    const rotated = await createTokenTestApp({ env: { PROVGRAPH_SIGNING_KEY: pem(signingKey()), PROVGRAPH_SIGNING_PREVIOUS_KEYS: oldX } });
    const fresh = await createTokenTestApp({ env: { PROVGRAPH_SIGNING_KEY: pem(signingKey()) } });
    try {
      const keys = (await rotated.send({ token: null, path: "/api/v1/signing-keys" })).json.keys;
      expect(keys.map((k: any) => [k.status, k.kid === p.signature.keyId])).toEqual([
        ["current", false],
        ["previous", true],
      ]);
      expect((await rotated.gqlAs(rotated.adminToken, VERIFY_SIGNATURE, { jws: p.signature.jws })).data!.verifySignature).toEqual({ valid: true, keyId: p.signature.keyId, contentType: "provgraph-evidence/2", reason: null });
      expect((await fresh.gqlAs(fresh.adminToken, VERIFY_SIGNATURE, { jws: p.signature.jws })).data!.verifySignature).toEqual({
        valid: false,
        keyId: p.signature.keyId,
        contentType: "provgraph-evidence/2",
        reason: `key "${p.signature.keyId}" is not one this server signs or signed with`,
      });
    } finally {
      await rotated.close();
      await fresh.close();
    }
  });

  test("without a signing key documents are unsigned and ?format=jws is SIGNING_NOT_CONFIGURED", async () => {
    const unsigned = await createTokenTestApp();
    try {
      await ingest(unsigned, positions("u"));
      const id = await latestVersionId(unsigned, "u", "core.positions");
      const res = await unsigned.gqlAs(unsigned.adminToken, `query($id: ID!) { evidencePackage(artifactId: $id) { signature { jws } } }`, { id });
      expect(res.data!.evidencePackage.signature).toBeNull();
      const jws = await unsigned.send({ token: unsigned.adminToken, path: `/api/v1/evidence/${id}?format=jws` });
      expect([jws.status, jws.json.error.code]).toEqual([409, "SIGNING_NOT_CONFIGURED"]);
      expect((await unsigned.send({ token: null, path: "/api/v1/signing-keys" })).json).toEqual({ keys: [] });
    } finally {
      await unsigned.close();
    }
  });
});
