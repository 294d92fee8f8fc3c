import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { buildApp } from "../src/app";
import { loadConfig } from "../src/config";
import { migrateDatabase } from "../src/db/migrate";
import { artifactIdFor, newRunId, operationIdFor } from "../src/services/ids";
import { lockBudgetsStatement, protectedDatasetsStatement, toAmount } from "../src/services/privacy";
import { interleave, round } from "./interleave";

/**
 * Privacy: a release's ledger debit over a backward closure of ~10,000 artifacts (the privacy
 * engine's settle in a unit of the commit path: the closure to the protected datasets, the release,
 * the budgets locked and read in order, the entries and the budgets' new spend) against the same
 * statements run raw with better-sqlite3 in one transaction. Both sides share one database file,
 * seeded with raw inserts; the sides alternate in interleaved blocks and the ratio is the median of
 * the per-block ratios (provgraph / raw).
 */
export interface PrivacyBenchResult {
  closureNodes: number;
  protectedDatasets: number;
  debitMs: number;
  debitRawMs: number;
  debitRatio: number;
  debitRatioMin: number;
  debitRatioMax: number;
  blocks: number;
  releasesPerBlock: number;
  /** The purpose check: a read of a tagged dataset's columns (clearance, purpose stated and allowed, audited) vs the same read of an untagged one. */
  purposeColumns: number;
  /** This process's CPU per read (the server runs in it), median over blocks. */
  purposeTaggedCpuMs?: number;
  purposeUntaggedCpuMs?: number;
  purposeTaggedMs: number;
  purposeUntaggedMs: number;
  purposeRatio: number;
  purposeRatioMin: number;
  purposeRatioMax: number;
  purposeBlocks: number;
  /** The machine's load average (1, 5, 15 min) when the run ended: a shared machine's figures need it beside them. */
  loadAverage?: number[];
}

const NAMESPACE = "bench";
const PROTECTED = 5;

export async function runPrivacyBench(options: { quick: boolean; log: (line: string) => void; dataDir: string }): Promise<PrivacyBenchResult> {
  const blocks = options.quick ? 4 : 10;
  const perBlock = options.quick ? 5 : 10;
  // root ← fanIn middles ← (fanIn - 1) leaves each: 1 + 100 + 9,900 = 10,001 nodes.
  const fanIn = 100;

  fs.mkdirSync(options.dataDir, { recursive: true });
  const file = path.join(options.dataDir, "privacy.db");
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  await migrateDatabase(`file:${file}`);
  const raw = new BetterSqlite3(file);
  raw.pragma("journal_mode = WAL");
  const seeded = seed(raw, fanIn);
  const app = await buildApp(loadConfig({ DATABASE_URL: `file:${file}`, PORT: "0", LOG_LEVEL: "silent" }));
  try {
    const epsilon = 0.000001;
    const draft = (runId: string) => ({ runId, cost: { epsilon, delta: 0, mechanism: "laplace" }, inputIds: [seeded.root], principal: { name: "bench", tokenId: null }, at: { field: "privacyCost" } });
    const debit = async () => {
      const runId = newRunId();
      await app.services.commits.run((tx) => app.services.privacy.ledger.settle(tx, [draft(runId)]));
    };

    // The same statements, prepared once, in one transaction.
    const { sql: closureSql } = protectedDatasetsStatement("sqlite", [{ runId: "", artifactId: seeded.root }]);
    const closure = raw.prepare(closureSql);
    const anyBudget = raw.prepare(`SELECT 1 AS one FROM "PrivacyBudget" LIMIT 1`);
    const releases = raw.prepare(`SELECT "runId", epsilon, delta, mechanism FROM "PrivacyRelease" WHERE "runId" IN (?)`);
    const insertRelease = raw.prepare(`INSERT INTO "PrivacyRelease" ("runId", epsilon, delta, mechanism, principal, "tokenId", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?)`);
    const entries = raw.prepare(`SELECT "runId", namespace, name FROM "PrivacyLedgerEntry" WHERE "runId" IN (?)`);
    const { sql: lockSql } = lockBudgetsStatement("sqlite", seeded.protectedNames.map((name) => ({ namespace: NAMESPACE, name })));
    const lock = raw.prepare(lockSql);
    const insertEntry = raw.prepare(`INSERT INTO "PrivacyLedgerEntry" (namespace, name, "runId", epsilon, delta, mechanism, principal, "tokenId", "epsilonSpentAfter", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const update = raw.prepare(`UPDATE "PrivacyBudget" SET "epsilonSpent" = ?, "deltaSpent" = ?, "updatedAt" = ? WHERE namespace = ? AND name = ?`);
    const asked = toAmount(epsilon, "COST_UP");
    const debitRaw = () => {
      const runId = newRunId();
      const at = new Date().toISOString();
      raw.transaction(() => {
        releases.all(runId);
        insertRelease.run(runId, String(asked), "0", "laplace", "raw", null, at);
        anyBudget.all();
        const reached = closure.all(runId, seeded.root) as { namespace: string; name: string }[];
        if (reached.length !== PROTECTED) throw new Error(`raw closure reached ${reached.length} protected datasets, expected ${PROTECTED}`);
        entries.all(runId);
        const budgets = lock.all(...seeded.protectedNames.flatMap((name) => [NAMESPACE, name])) as { namespace: string; name: string; epsilonSpent: number | bigint; deltaSpent: number | bigint }[];
        for (const b of budgets) {
          const after = BigInt(b.epsilonSpent) + asked;
          insertEntry.run(b.namespace, b.name, runId, String(asked), "0", "laplace", "raw", null, String(after), at);
          update.run(String(after), String(b.deltaSpent), at, b.namespace, b.name);
        }
      })();
    };

    const measured = await interleave(
      [
        { name: "provgraph", run: debit },
        { name: "raw", run: debitRaw },
      ],
      { blocks, perBlock, warmup: 2 },
    );
    // Every release debited every protected dataset once, on both sides.
    const total = blocks * perBlock * 2 + 4;
    const entryCount = (raw.prepare(`SELECT COUNT(*) AS n FROM "PrivacyLedgerEntry"`).get() as { n: number }).n;
    if (entryCount !== total * PROTECTED) throw new Error(`the ledger holds ${entryCount} entries, expected ${total * PROTECTED}`);
    const spread = measured.ratioSpread("raw", "provgraph");
    const result: PrivacyBenchResult = {
      closureNodes: seeded.nodes,
      protectedDatasets: PROTECTED,
      debitMs: measured.sides.provgraph.msPerOp,
      debitRawMs: measured.sides.raw.msPerOp,
      // time(provgraph) / time(raw), per block.
      debitRatio: measured.ratio("raw", "provgraph"),
      debitRatioMin: spread.min,
      debitRatioMax: spread.max,
      blocks,
      releasesPerBlock: perBlock,
      purposeColumns: 0,
      purposeTaggedMs: 0,
      purposeUntaggedMs: 0,
      purposeRatio: 0,
      purposeRatioMin: 0,
      purposeRatioMax: 0,
      purposeBlocks: 0,
    };
    Object.assign(result, await purposeCheck(app, options.quick));
    result.loadAverage = os.loadavg().map((load) => round(load, 2));
    options.log(
      `privacy  the purpose check: a read of ${result.purposeColumns} tagged columns under an allowed purpose ${round(result.purposeTaggedMs, 2)} ms vs the same read untagged ${round(result.purposeUntaggedMs, 2)} ms (${result.purposeRatio}, blocks ${result.purposeRatioMin}–${result.purposeRatioMax}; CPU ${result.purposeTaggedCpuMs} vs ${result.purposeUntaggedCpuMs} ms a read)`,
    );
    options.log(
      `privacy  a release's ledger debit over a closure of ${result.closureNodes} nodes (${PROTECTED} protected datasets): ${round(result.debitMs, 2)} ms vs raw ${round(result.debitRawMs, 2)} ms (${result.debitRatio}, blocks ${result.debitRatioMin}–${result.debitRatioMax})`,
    );
    return result;
  } finally {
    await app.stop();
    raw.close();
  }
}

type PurposeFigures = Pick<PrivacyBenchResult, "purposeColumns" | "purposeTaggedCpuMs" | "purposeUntaggedCpuMs" | "purposeTaggedMs" | "purposeUntaggedMs" | "purposeRatio" | "purposeRatioMin" | "purposeRatioMax" | "purposeBlocks">;

/**
 * The purpose check on a tagged read: the same GraphQL read (a dataset version's columns with their
 * sample values, in-process through the server's fetch handler, stating a purpose) of a dataset whose
 * columns hold PII — declared to serve that purpose, so the value is shown, and the read goes to the
 * purpose audit — and of one that holds no tag. The sides alternate in interleaved blocks, each
 * block ending with the purpose audit written, so the tagged side pays for its audit writes.
 */
async function purposeCheck(app: Awaited<ReturnType<typeof buildApp>>, quick: boolean): Promise<PurposeFigures> {
  const columns = 20;
  const fields = Array.from({ length: columns }, (_, i) => `c${i}`);
  const fetchJson = async (path: string, body: unknown) => {
    const response = await app.yoga.fetch(`http://bench.local${path}`, { method: "POST", headers: { "content-type": "application/json", "x-provgraph-purpose": "fraud-investigation" }, body: JSON.stringify(body) });
    const json = (await response.json()) as { errors?: unknown };
    if (response.status >= 300 || json.errors) throw new Error(`${path}: ${response.status} ${JSON.stringify(json).slice(0, 300)}`);
    return json as { data: Record<string, any> };
  };
  const load = (name: string) => ({
    eventType: "COMPLETE",
    eventTime: new Date().toISOString(),
    producer: "https://bench.local",
    schemaURL: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    run: { runId: crypto.randomUUID() },
    job: { namespace: "purpose", name: `load_${name}` },
    inputs: [],
    outputs: [{ namespace: "purpose", name, facets: { schema: { fields: fields.map((f) => ({ name: f, description: `${f} of ${name}` })) }, provgraph_columnSamples: { fields: Object.fromEntries(fields.map((f) => [f, [`${name}-${f}`]])) } } }],
  });
  for (const name of ["tagged", "untagged"]) {
    const response = await app.yoga.fetch("http://bench.local/api/v1/lineage", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(load(name)) });
    if (response.status !== 201) throw new Error(`ingest ${name}: ${response.status} ${await response.text()}`);
  }
  const ids: Record<string, string> = {};
  for (const name of ["tagged", "untagged"]) ids[name] = (await fetchJson("/graphql", { query: `{ dataset(namespace: "purpose", name: "${name}") { latestVersion { id } } }` })).data.dataset.latestVersion.id;
  await fetchJson("/graphql", { query: `mutation { tagArtifact(input: { artifactId: "${ids.tagged}", tag: "PII", reason: "bench" }) { created } }` });
  await fetchJson("/graphql", { query: `mutation { declareTagPurposes(input: { tag: "PII", purposes: ["fraud-investigation"], reason: "bench" }) { tag } }` });
  const read = (name: string) => async () => {
    const answer = await fetchJson("/graphql", { query: `query($id: ID!) { artifact(id: $id) { columns { field description sampleValues } } }`, variables: { id: ids[name] } });
    const shown = answer.data.artifact.columns.filter((c: { sampleValues: unknown }) => c.sampleValues !== null).length;
    if (shown !== columns) throw new Error(`${name}: ${shown} of ${columns} columns shown`);
  };
  // Each block ends by writing what the purpose audit noted (its batches are otherwise written a moment
  // later, in whichever side's block runs then): the tagged side pays for its audit, the untagged one
  // for the same call with nothing to write.
  const block = (name: string) => async (first: number, count: number) => {
    for (let i = 0; i < count; i++) await read(name)();
    await app.services.compliance.purposeAudit.flush();
  };
  const blocks = quick ? 6 : 20;
  const measured = await interleave(
    [
      { name: "tagged", runBlock: block("tagged") },
      { name: "untagged", runBlock: block("untagged") },
    ],
    { blocks, perBlock: quick ? 20 : 50, warmup: 20 },
  );
  await app.services.compliance.purposeAudit.flush();
  const audited = await app.database.prisma.purposeAccess.count({ where: { artifactId: ids.tagged } });
  if (audited === 0) throw new Error("the tagged reads were not audited");
  const spread = measured.ratioSpread("untagged", "tagged");
  return {
    purposeColumns: columns,
    purposeTaggedMs: measured.sides.tagged.msPerOp,
    purposeUntaggedMs: measured.sides.untagged.msPerOp,
    purposeTaggedCpuMs: measured.sides.tagged.cpuMsPerOp,
    purposeUntaggedCpuMs: measured.sides.untagged.cpuMsPerOp,
    // time(tagged) / time(untagged), per block.
    purposeRatio: measured.ratio("untagged", "tagged"),
    purposeRatioMin: spread.min,
    purposeRatioMax: spread.max,
    purposeBlocks: blocks,
  };
}

/**
 * The release's input (root) ← `fanIn` intermediate artifacts ← `fanIn - 1` versions of source
 * datasets each; PROTECTED of the 50 source datasets have a budget large enough never to run out.
 */
function seed(db: BetterSqlite3.Database, fanIn: number): { root: string; nodes: number; protectedNames: string[] } {
  const now = new Date().toISOString();
  const hash = (text: string) => `sha256:${crypto.createHash("sha256").update(text).digest("hex")}`;
  const operationId = operationIdFor("bench.derive", "1");
  const insertArtifact = db.prepare(`INSERT INTO "Artifact" (id, "artifactType", "contentHash", "originalName", "datasetNamespace", "datasetName", "datasetVersion", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertExecution = db.prepare(`INSERT INTO "Execution" ("runId", "specId", "operationId", status, "recordedAt") VALUES (?, ?, ?, 'COMPLETED', ?)`);
  const insertEdge = db.prepare(`INSERT INTO "ProvenanceEdge" ("sourceId", "targetId", "runId", kind, "sourceType", "targetType", "createdAt") VALUES (?, ?, ?, 'INDEPENDENT', 'dataset', 'dataset', ?)`);
  const insertBudget = db.prepare(
    `INSERT INTO "PrivacyBudget" (namespace, name, "epsilonTotal", "epsilonSpent", "deltaSpent", accounting, "createdAt", "updatedAt") VALUES (?, ?, ?, 0, 0, 'BASIC_SEQUENTIAL', ?, ?)`,
  );
  const protectedNames = Array.from({ length: PROTECTED }, (_, i) => `bench.source_${i}`);
  let root = "";
  let nodes = 0;
  db.transaction(() => {
    db.prepare(`INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES (?, 'bench.derive', '1', 'CREATOR', '{}', ?)`).run(operationId, now);
    const artifact = (name: string, dataset: string | null, version: string | null) => {
      const id = artifactIdFor("dataset", hash(name));
      insertArtifact.run(id, "dataset", hash(name), name, dataset ? NAMESPACE : null, dataset, version, now);
      nodes += 1;
      return id;
    };
    const derive = (target: string, sources: string[]) => {
      const runId = newRunId();
      insertExecution.run(runId, `spec_${target}`, operationId, now);
      for (const s of sources) insertEdge.run(s, target, runId, now);
    };
    root = artifact("release-input", "bench.release_input", "v1");
    const middles = Array.from({ length: fanIn }, (_, i) => artifact(`middle-${i}`, null, null));
    derive(root, middles);
    let leaf = 0;
    for (const middle of middles) {
      derive(middle, Array.from({ length: fanIn - 1 }, () => artifact(`leaf-${leaf}`, `bench.source_${leaf % 50}`, `v${leaf++}`)));
    }
    for (const name of protectedNames) insertBudget.run(NAMESPACE, name, String(toAmount(1_000_000, "LIMIT_DOWN")), now, now);
  })();
  db.pragma("optimize");
  return { root, nodes, protectedNames };
}
