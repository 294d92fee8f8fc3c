import { execFileSync } from "node:child_process";
import { createHmac } from "node:crypto";
import fs from "node:fs";
import { sqliteFilePath } from "../../src/db/database-url";
import { createLogger } from "../../src/logger";
import { createTokenTestApp, type TokenTestApp } from "../support/auth";
import { allCounts, ERASURE_SECRET, hopEvent, ingest, latestVersionId } from "../support/compliance";
import { postLineage } from "../support/openlineage";
import { draft, recordExecution, recordOk, registerOperation } from "../support/recording";
import { createTestApp, errorCodes } from "../support/test-app";

/**
 * Erasure: catalogue facts, the plan (forward closure, one action per derived artifact, SLA, the
 * tombstone step), its execution (the HMAC tombstone), the raw key nowhere afterwards (database
 * files, a pg_dump, the log), and the subject refused from then on.
 */

// Distinctive enough that finding it anywhere means it was stored or logged.
const SUBJECT = "subject-4711-Zq9xVw3kLmN8pR2t";
const OTHER_SUBJECT = "subject-0815-Hj4sTt6yUu1oPa9e";
const keyHash = (key: string) => `hmac-sha256:${createHmac("sha256", ERASURE_SECRET).update(`provgraph-subject-key\u0000${key}`, "utf8").digest("hex")}`;

const CATALOGUE = `mutation($input: RecordCatalogueFactsInput!) { recordCatalogueFacts(input: $input) { id immutable rebuildableFromSource holdsSubjectData aggregate { minGroupSize uniqueQuasiIdentifierCombinations quasiIdentifiers } recordedBy target { artifactId namespace name } } }`;
const PLAN_FIELDS = `id keyHash kThreshold createdAt createdBy status executedAt executedBy
  roots { artifactId holds action slaDays dueBy }
  actions { artifactId depth action argument kThreshold minGroupSize uniqueQuasiIdentifierCombinations factsId slaDays dueBy }
  tombstone { action list keyHash }`;
const PLAN = `mutation($subjectKey: String!, $k: Int) { erasurePlan(subjectKey: $subjectKey, kThreshold: $k) { ${PLAN_FIELDS} } }`;
const EXECUTE = `mutation($planId: ID!) { executeErasure(planId: $planId) { ${PLAN_FIELDS} } }`;
const PLAN_BY_ID = `query($id: ID!) { erasurePlanById(id: $id) { ${PLAN_FIELDS} } }`;

describe("erasure plans", () => {
  let t: TokenTestApp;
  const log: string[] = [];
  const ids: Record<string, string> = {};
  let facts: Record<string, number> = {};

  beforeAll(async () => {
    // Everything the server logs, at its most talkative level.
    const logger = createLogger("debug", { write: (line: string) => void log.push(line) });
    t = await createTokenTestApp({ env: { PROVGRAPH_ERASURE_SECRET: ERASURE_SECRET }, app: { logger } });
    await registerOperation(t, { name: "extract", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    await registerOperation(t, { name: "derive", version: "1", kind: "CREATOR", inputs: [{ role: "in", artifactType: "csv" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["in"] } }] });
    // customers.csv holds the subject (declared on the draft); one derived artifact of each class.
    const extract = await recordOk(t, { operation: "extract", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [{ ...draft("customers.csv"), subjectKeys: [SUBJECT] }] }] });
    ids.customers = extract.outputIds["customers.csv"];
    for (const name of ["archive", "mart", "stats", "embeddings"]) {
      const out = `${name}.csv`;
      ids[name] = (await recordOk(t, { operation: "derive", operationVersion: "1", inputs: [{ role: "in", artifactIds: [ids.customers] }], outputs: [{ role: "out", artifacts: [draft(out)] }], lineage: [{ output: out, sources: [ids.customers] }] })).outputIds[out];
    }
    const record = async (input: Record<string, unknown>) => {
      const res = await t.gql(CATALOGUE, { input });
      if (res.errors) throw new Error(JSON.stringify(res.errors));
      return res.data!.recordCatalogueFacts;
    };
    facts = {
      archive: (await record({ target: { artifactId: ids.archive }, immutable: true, note: "WORM archive", reason: "S3 object lock, 7 years" })).id,
      mart: (await record({ target: { artifactId: ids.mart }, rebuildableFromSource: true, note: "dbt mart" })).id,
      stats: (await record({ target: { artifactId: ids.stats }, aggregate: { minGroupSize: 120, uniqueQuasiIdentifierCombinations: 0, quasiIdentifiers: ["zip", "age_band"] }, note: "weekly counts" })).id,
      embeddings: (await record({ target: { artifactId: ids.embeddings }, note: "embedding index" })).id,
    };
  });
  afterAll(() => t.close());

  const gql = async (query: string, variables: Record<string, unknown>, token = t.adminToken) => {
    const res = await t.gqlAs(token, query, variables);
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data!;
  };

  let planId = "";

  test("one artifact of each class gives exactly CRYPTO_SHRED, REBUILD, AGGREGATE_OK and ESCALATE, each due in 30 days, plus the tombstone step", async () => {
    const before = Date.now();
    const plan = (await gql(PLAN, { subjectKey: SUBJECT })).erasurePlan;
    planId = plan.id;
    expect(plan.id).toMatch(/^erp_/);
    const due = new Date(Date.parse(plan.createdAt) + 30 * 86_400_000).toISOString();
    expect(Date.parse(plan.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(plan).toMatchObject({ keyHash: keyHash(SUBJECT), kThreshold: 50, createdBy: "bootstrap", status: "PLANNED", executedAt: null, executedBy: null });
    expect(plan.roots).toEqual([{ artifactId: ids.customers, holds: ["DECLARED_SUBJECT"], action: "DELETE_RECORDS", slaDays: 30, dueBy: due }]);
    const byArtifact = Object.fromEntries(plan.actions.map((a: any) => [a.artifactId, a]));
    expect(plan.actions).toHaveLength(4);
    expect(byArtifact[ids.archive]).toEqual({ artifactId: ids.archive, depth: 1, action: "CRYPTO_SHRED", argument: expect.stringContaining("immutable store"), kThreshold: 50, minGroupSize: null, uniqueQuasiIdentifierCombinations: null, factsId: facts.archive, slaDays: 30, dueBy: due });
    expect(byArtifact[ids.mart]).toEqual({ artifactId: ids.mart, depth: 1, action: "REBUILD", argument: expect.stringContaining("rebuildable from source"), kThreshold: 50, minGroupSize: null, uniqueQuasiIdentifierCombinations: null, factsId: facts.mart, slaDays: 30, dueBy: due });
    expect(byArtifact[ids.stats]).toEqual({
      artifactId: ids.stats,
      depth: 1,
      action: "AGGREGATE_OK",
      argument: "aggregate: minimum group size 120 ≥ k = 50 and no unique quasi-identifier combination (0): argued non-personal",
      kThreshold: 50,
      minGroupSize: 120,
      uniqueQuasiIdentifierCombinations: 0,
      factsId: facts.stats,
      slaDays: 30,
      dueBy: due,
    });
    expect(byArtifact[ids.embeddings]).toEqual({ artifactId: ids.embeddings, depth: 1, action: "ESCALATE", argument: expect.stringContaining("embedding index"), kThreshold: 50, minGroupSize: null, uniqueQuasiIdentifierCombinations: null, factsId: facts.embeddings, slaDays: 30, dueBy: due });
    expect(plan.tombstone).toEqual({ action: "INSERT_TOMBSTONE", list: "suppression_list", keyHash: keyHash(SUBJECT) });
    // Recorded: the same plan read back.
    expect((await gql(PLAN_BY_ID, { id: plan.id })).erasurePlanById).toEqual(plan);
  });

  test("an aggregate under k, or with a unique quasi-identifier combination, is ESCALATE with its numbers; k is the plan's argument", async () => {
    const planOf = async (k: number) => Object.fromEntries((await gql(PLAN, { subjectKey: SUBJECT, k })).erasurePlan.actions.map((a: any) => [a.artifactId, a]));
    const strict = await planOf(200);
    expect(strict[ids.stats]).toMatchObject({ action: "ESCALATE", argument: "aggregate that cannot be argued non-personal: minimum group size 120 < k = 200 (weekly counts): decide at DPO level", kThreshold: 200, minGroupSize: 120, uniqueQuasiIdentifierCombinations: 0 });
    await gql(CATALOGUE, { input: { target: { artifactId: ids.stats }, aggregate: { minGroupSize: 500, uniqueQuasiIdentifierCombinations: 3, quasiIdentifiers: ["zip", "birth_date"] }, note: "weekly counts", reason: "re-measured" } });
    const unique = await planOf(50);
    expect(unique[ids.stats]).toMatchObject({ action: "ESCALATE", argument: "aggregate that cannot be argued non-personal: 3 unique quasi-identifier combination(s) (weekly counts): decide at DPO level", minGroupSize: 500, uniqueQuasiIdentifierCombinations: 3 });
    // The other classes are unchanged by either.
    expect([ids.archive, ids.mart, ids.embeddings].map((id) => unique[id].action)).toEqual(["CRYPTO_SHRED", "REBUILD", "ESCALATE"]);
  });

  test("a subject declared by OpenLineage's provgraph_dataSubjects facet roots its plan there, and the closure follows column edges", async () => {
    await ingest(
      t,
      hopEvent("crm", "load", [], { name: "crm.contacts", fields: ["email", "city"], facets: { provgraph_dataSubjects: { keys: [OTHER_SUBJECT] } } }, []),
      hopEvent("crm", "mail", [{ name: "crm.contacts", fields: ["email", "city"] }], { name: "mail.list", fields: ["address"] }, [["address", "crm.contacts", "email", "DIRECT"]]),
    );
    const contacts = await latestVersionId(t, "crm", "crm.contacts");
    const mail = await latestVersionId(t, "crm", "mail.list");
    const plan = (await gql(PLAN, { subjectKey: OTHER_SUBJECT })).erasurePlan;
    expect(plan.roots.map((r: any) => [r.artifactId, r.holds, r.action])).toEqual([[contacts, ["DECLARED_SUBJECT"], "DELETE_RECORDS"]]);
    expect(plan.actions.map((a: any) => [a.artifactId, a.depth, a.action])).toEqual([[mail, 1, "ESCALATE"]]);
    // The stored event carries the keyed hash, never the key.
    const stored = await t.app.database.prisma.openLineageEvent.findMany();
    expect(stored.some((e) => JSON.stringify(e).includes(keyHash(OTHER_SUBJECT)))).toBe(true);
  });

  test("executeErasure records the plan executed and inserts the HMAC tombstone; a second execution is refused and writes nothing", async () => {
    const executed = (await gql(EXECUTE, { planId })).executeErasure;
    expect(executed).toMatchObject({ id: planId, status: "EXECUTED", executedBy: "bootstrap", keyHash: keyHash(SUBJECT) });
    expect(Date.parse(executed.executedAt)).toBeLessThanOrEqual(Date.now() + 1000);
    expect((await gql(PLAN_BY_ID, { id: planId })).erasurePlanById).toMatchObject({ status: "EXECUTED", executedAt: executed.executedAt });
    const tombstones = await t.app.database.prisma.subjectTombstone.findMany();
    expect(tombstones.map((s) => [s.keyHash, s.planId])).toEqual([[keyHash(SUBJECT), planId]]);

    const before = await allCounts(t);
    const again = await t.gqlAs(t.adminToken, EXECUTE, { planId });
    expect(errorCodes(again)).toEqual(["ERASURE_ALREADY_EXECUTED"]);
    expect(again.errors![0].extensions).toMatchObject({ field: "planId", planId, executedAt: executed.executedAt });
    expect({ ...(await allCounts(t)), auditEvents: before.auditEvents }).toEqual(before);
  });

  test("re-recording the subject is refused with SUBJECT_SUPPRESSED — on an artifact draft or by the OpenLineage facet — and every table count is unchanged", async () => {
    const before = await allCounts(t);
    const res = await t.gqlAs(t.adminToken, `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename } }`, {
      input: { operation: "extract", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [{ ...draft("customers-again.csv"), subjectKeys: ["someone-else-entirely", SUBJECT] }] }] },
    });
    expect(errorCodes(res)).toEqual(["SUBJECT_SUPPRESSED"]);
    expect(res.errors![0].extensions!.field).toBe("outputs[0].artifacts[0].subjectKeys[1]");
    expect(res.errors![0].message).not.toContain(SUBJECT);
    expect({ ...(await allCounts(t)), auditEvents: before.auditEvents }).toEqual(before);

    const event = hopEvent("crm", "reload", [], { name: "crm.customers", fields: ["email"], facets: { provgraph_dataSubjects: { keys: [SUBJECT] } } }, []);
    const answer = await postLineage(t, JSON.stringify(event), { "content-type": "application/json", authorization: `Bearer ${t.adminToken}` });
    expect(answer.status).toBe(422);
    expect(answer.text).toContain("SUBJECT_SUPPRESSED");
    expect(answer.text).toContain("/outputs/0/facets/provgraph_dataSubjects/keys/0");
    expect(answer.text).not.toContain(SUBJECT);
    expect(await allCounts(t)).toEqual({ ...before, auditEvents: (await allCounts(t)).auditEvents });
    // A subject not erased is still recorded.
    const other = await recordExecution(t, { operation: "extract", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [{ ...draft("fresh.csv"), subjectKeys: ["someone-else-entirely"] }] }] });
    expect(other.__typename).toBe("RecordExecutionPayload");
  });

  test("an event ingested before its subject was erased, sent again, is refused with SUBJECT_SUPPRESSED (not answered DUPLICATE), by the route and the mutation, writing nothing", async () => {
    const subject = "subject-resent-Qe5rT7yU9iO1pA3s";
    const event = hopEvent("crm", "resend", [], { name: "crm.resent", fields: ["email"], facets: { provgraph_dataSubjects: { keys: [subject] } } }, []);
    await ingest(t, event);
    const plan = (await gql(PLAN, { subjectKey: subject })).erasurePlan;
    await gql(EXECUTE, { planId: plan.id });

    const before = await allCounts(t);
    const answer = await postLineage(t, JSON.stringify(event), { "content-type": "application/json", authorization: `Bearer ${t.adminToken}` });
    expect([answer.status, answer.json.error?.code, answer.json.error?.pointer]).toEqual([422, "SUBJECT_SUPPRESSED", "/outputs/0/facets/provgraph_dataSubjects/keys/0"]);
    expect(answer.text).not.toContain(subject);
    const res = await gql(`mutation($events: [JSON!]!) { ingestOpenLineageEvents(events: $events) { stored duplicates refused results { status error { code pointer } } } }`, { events: [event] });
    expect(res.ingestOpenLineageEvents).toEqual({ stored: 0, duplicates: 0, refused: 1, results: [{ status: "REFUSED", error: { code: "SUBJECT_SUPPRESSED", pointer: "/outputs/0/facets/provgraph_dataSubjects/keys/0" } }] });
    expect({ ...(await allCounts(t)), auditEvents: before.auditEvents }).toEqual(before);
  });

  describe("bad input to the erasure mutations is a typed error naming the field, and writes nothing", () => {
    const cases: [string, string, Record<string, unknown>, string, string][] = [
      ["kThreshold 0", PLAN, { subjectKey: SUBJECT, k: 0 }, "INVALID_ARGUMENT", "kThreshold"],
      ["kThreshold above a billion", PLAN, { subjectKey: SUBJECT, k: 2_000_000_000 }, "INVALID_ARGUMENT", "kThreshold"],
      ["an empty subject key", PLAN, { subjectKey: "  " }, "INVALID_ARGUMENT", "subjectKey"],
      ["a malformed plan id", EXECUTE, { planId: "plan-1" }, "INVALID_ID", "planId"],
      ["an unknown plan", EXECUTE, { planId: "erp_0190f5c2-0000-7000-8000-000000000000" }, "NOT_FOUND", "planId"],
      ["catalogue facts of an unknown artifact", CATALOGUE, { input: { target: { artifactId: "art_0000000000000000000000000000000000000000" }, immutable: true } }, "NOT_FOUND", "artifactId"],
      ["catalogue facts naming both an artifact and a dataset", CATALOGUE, { input: { target: { artifactId: "art_0000000000000000000000000000000000000000", namespace: "crm", name: "x" } } }, "INVALID_ARGUMENT", "namespace"],
      ["an aggregate with minGroupSize 0", CATALOGUE, { input: { target: { namespace: "crm", name: "x" }, aggregate: { minGroupSize: 0, uniqueQuasiIdentifierCombinations: 0 } } }, "INVALID_ARGUMENT", "aggregate.minGroupSize"],
      ["negative unique combinations", CATALOGUE, { input: { target: { namespace: "crm", name: "x" }, aggregate: { minGroupSize: 5, uniqueQuasiIdentifierCombinations: -1 } } }, "INVALID_ARGUMENT", "aggregate.uniqueQuasiIdentifierCombinations"],
    ];
    test.each(cases)("%s", async (_name, query, variables, code, field) => {
      const before = await allCounts(t);
      const res = await t.gqlAs(t.adminToken, query, variables);
      expect(errorCodes(res)).toEqual([code]);
      expect(res.errors![0].extensions!.field).toBe(field);
      expect({ ...(await allCounts(t)), auditEvents: before.auditEvents }).toEqual(before);
    });

    test("the erasure mutations and reads need the admin scope", async () => {
      const writer = await t.issue(["read", "write"], { name: "writer" });
      const before = await allCounts(t);
      for (const [query, variables] of [[PLAN, { subjectKey: SUBJECT }], [EXECUTE, { planId }], [PLAN_BY_ID, { id: planId }]] as const) {
        expect(errorCodes(await t.gqlAs(writer, query, variables))).toEqual(["FORBIDDEN"]);
      }
      expect({ ...(await allCounts(t)), auditEvents: before.auditEvents, apiTokens: before.apiTokens }).toEqual(before);
    });

    test("a bad variable does not put the key in the log through GraphQL's echo of the value (the caller still reads it)", async () => {
      const lines = log.length;
      const res = await t.gqlAs(t.adminToken, PLAN, { subjectKey: [SUBJECT] });
      expect(errorCodes(res)).toEqual(["BAD_USER_INPUT"]);
      expect(res.errors![0].message).toContain(SUBJECT);
      const input = await t.gqlAs(t.adminToken, `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename } }`, {
        input: { operation: "extract", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [{ ...draft("x.csv"), subjectKeys: { key: SUBJECT } }] }] },
      });
      expect(errorCodes(input)).toEqual(["BAD_USER_INPUT"]);
      const logged = log.slice(lines).map((line) => JSON.parse(line)).filter((line) => line.msg === "request answered with client errors");
      expect(logged.map((line) => line.first.message)).toEqual([
        'Variable "$subjectKey" got an invalid value (values are not logged)',
        'Variable "$input" got an invalid value at "input.outputs[0].artifacts[0].subjectKeys" (values are not logged)',
      ]);
    });
  });

  test("afterwards the raw subject key is nowhere: not in the database files (or a pg_dump), not in the server's log", async () => {
    const url = t.app.database.url;
    if (url.startsWith("file:")) {
      const file = sqliteFilePath(url);
      const files = [file, `${file}-wal`, `${file}-shm`, `${file}-journal`].filter((f) => fs.existsSync(f));
      expect(files[0]).toBe(file);
      for (const f of files) {
        const bytes = fs.readFileSync(f);
        expect([f, bytes.includes(Buffer.from(SUBJECT, "utf8"))]).toEqual([f, false]);
        expect([f, bytes.includes(Buffer.from(OTHER_SUBJECT, "utf8"))]).toEqual([f, false]);
      }
      // The hashes are there: the grep would find what is stored.
      expect(Buffer.concat(files.map((f) => fs.readFileSync(f))).includes(Buffer.from(keyHash(SUBJECT).slice("hmac-sha256:".length)))).toBe(true);
    } else {
      const dump = execFileSync("pg_dump", ["--data-only", "--no-owner", url], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
      expect(dump).toContain("SubjectTombstone");
      expect(dump).toContain(keyHash(SUBJECT));
      expect(dump.includes(SUBJECT)).toBe(false);
      expect(dump.includes(OTHER_SUBJECT)).toBe(false);
    }
    const logged = log.join("\n");
    expect(log.length).toBeGreaterThan(0);
    expect(logged.includes(SUBJECT)).toBe(false);
    expect(logged.includes(OTHER_SUBJECT)).toBe(false);
    expect(logged.includes(ERASURE_SECRET)).toBe(false);
  });
});

describe("erasure without PROVGRAPH_ERASURE_SECRET", () => {
  test("subjects cannot be declared or planned (ERASURE_NOT_CONFIGURED), and nothing is written", async () => {
    const t = await createTestApp();
    try {
      await registerOperation(t, { name: "extract", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
      const before = await allCounts(t);
      const plan = await t.gql(PLAN, { subjectKey: SUBJECT });
      expect(errorCodes(plan)).toEqual(["ERASURE_NOT_CONFIGURED"]);
      expect(plan.errors![0].extensions!.field).toBe("subjectKey");
      const recorded = await t.gql(`mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename } }`, {
        input: { operation: "extract", operationVersion: "1", inputs: [], outputs: [{ role: "out", artifacts: [{ ...draft("c.csv"), subjectKeys: [SUBJECT] }] }] },
      });
      expect(errorCodes(recorded)).toEqual(["ERASURE_NOT_CONFIGURED"]);
      const answer = await postLineage(t, JSON.stringify(hopEvent("crm", "load", [], { name: "crm.c", fields: ["email"], facets: { provgraph_dataSubjects: { keys: [SUBJECT] } } }, [])));
      expect([answer.status, answer.json.error.code, answer.json.error.pointer]).toEqual([422, "ERASURE_NOT_CONFIGURED", "/outputs/0/facets/provgraph_dataSubjects/keys/0"]);
      expect(answer.text).not.toContain(SUBJECT);
      expect({ ...(await allCounts(t)), auditEvents: before.auditEvents }).toEqual(before);
    } finally {
      await t.close();
    }
  });
});
