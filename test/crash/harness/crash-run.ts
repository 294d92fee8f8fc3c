import { openDatabase } from "../../../src/db/client";
import { OPERATIONS, pipelineComposite } from "../../support/composite-fixtures";
import { REGISTER_COMPOSITE } from "../../support/composites";
import { REGISTER_OPERATION } from "../../support/recording";
import { missingAcknowledged } from "./acknowledged-check";
import { type Acknowledged, LoadClients } from "./load-clients";
import type { CrashPostgres } from "./postgres-cluster";
import { ServerControl } from "./server-control";
import { nextWrite } from "./write-watch";

export interface CrashRunOptions {
  /** The database the server runs on (a SQLite file URL, or a PostgreSQL database). */
  databaseUrl: string;
  /** A name for the figures line: sqlite, postgres. */
  label: string;
  clients: number;
  kills: number;
  /** Milliseconds of load before each kill: uniformly in [min, max). */
  loadBetweenKillsMs: [number, number];
  seed: number;
  /** When given, PostgreSQL itself is stopped immediately once mid-load (after the middle kill) and started again. */
  postgres?: CrashPostgres;
  /**
   * What the database writes when it commits (SQLite's -wal file, PostgreSQL's pg_wal directory):
   * every other kill waits, after its random delay, for the next write there and kills right after it.
   */
  commitWrites?: string;
  /** Extra environment for the server. */
  env?: Record<string, string>;
}

export interface CrashFigures {
  label: string;
  seed: number;
  kills: number;
  /** Of them, kills sent right after the database wrote (the rest on the timer alone). */
  killsAfterWrite: number;
  databaseCrashes: number;
  /** Times the server had to be started again without being killed (it died by itself). */
  unexpectedExits: string[];
  requests: number;
  transportFailures: number;
  errorAnswers: Record<string, number>;
  acknowledged: { executions: number; composites: number; openLineageRuns: number; total: number };
  /** Acknowledged mutations not found as answered after the last restart. */
  missing: string[];
  /** Integrity checks run (after each restart, and at the end) and, per invariant, the most violations one of them found. */
  integrityChecks: number;
  violations: Record<string, number>;
  violationSamples: string[];
  elapsedMs: number;
}

const INTEGRITY_REPORT = "query { integrityReport(sample: 5) { ok invariants { name checked violations sample { subject detail } } } }";

/** A small deterministic PRNG (mulberry32): a run is reproducible from its printed seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function graphql(url: string, query: string, variables?: Record<string, unknown>): Promise<any> {
  const response = await fetch(`${url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }), signal: AbortSignal.timeout(60_000) });
  const body = (await response.json()) as { data?: any; errors?: unknown[] };
  if (body.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors)}`);
  return body.data;
}

/**
 * The crash scenario: the real server on one database, `clients` concurrent writers, a SIGKILL at
 * random moments (`kills` times; optionally PostgreSQL stopped immediately once), each followed by a
 * restart and an integrity check with the writers paused; at the end every acknowledged mutation
 * must be in the store as answered.
 */
export async function runCrashScenario(options: CrashRunOptions): Promise<CrashFigures> {
  const started = Date.now();
  const next = random(options.seed);
  const server = new ServerControl({ DATABASE_URL: options.databaseUrl, ...options.env });
  const violations: Record<string, number> = {};
  const violationSamples: string[] = [];
  let integrityChecks = 0;
  let databaseCrashes = 0;
  let kills = 0;
  let killsAfterWrite = 0;
  const checkIntegrity = async () => {
    await server.ensureRunning();
    const report = (await graphql(server.url!, INTEGRITY_REPORT)).integrityReport as { invariants: { name: string; violations: number; sample: { subject: string; detail: string }[] }[] };
    integrityChecks += 1;
    // A corrupt row stays corrupt: count each invariant's worst check, list each sampled row once.
    for (const invariant of report.invariants) {
      violations[invariant.name] = Math.max(violations[invariant.name] ?? 0, invariant.violations);
      for (const v of invariant.sample) {
        const line = `${invariant.name}: ${v.subject} ${v.detail}`;
        if (!violationSamples.some((known) => known.endsWith(line))) violationSamples.push(`after ${kills} kills, ${line}`);
      }
    }
  };

  await server.start();
  for (const operation of OPERATIONS) await graphql(server.url!, REGISTER_OPERATION, { input: operation });
  await graphql(server.url!, REGISTER_COMPOSITE, { input: pipelineComposite("crash_persist", "PERSIST") });
  await graphql(server.url!, REGISTER_COMPOSITE, { input: pipelineComposite("crash_discard", "DISCARD") });

  const clients = new LoadClients({ url: () => server.url }, options.clients, `${options.label}-${options.seed}`);
  clients.start();
  const [min, max] = options.loadBetweenKillsMs;
  try {
    for (let k = 1; k <= options.kills; k++) {
      await sleep(min + next() * (max - min));
      await server.ensureRunning();
      if (options.commitWrites && k % 2 === 0 && (await nextWrite(options.commitWrites, max)) === "write") killsAfterWrite += 1;
      await server.kill();
      kills += 1;
      await server.start();
      await clients.pause();
      await checkIntegrity();
      clients.unpause();
      if (options.postgres && k === Math.ceil(options.kills / 2)) {
        await sleep(min + next() * (max - min));
        options.postgres.stopImmediately();
        databaseCrashes += 1;
        await sleep(500);
        options.postgres.start();
        await sleep(min);
        await clients.pause();
        await checkIntegrity();
        clients.unpause();
      }
    }
    await sleep(min);
  } finally {
    await clients.stop();
  }
  await checkIntegrity();
  await server.stop();

  const database = openDatabase(options.databaseUrl);
  let missing: string[];
  try {
    missing = await missingAcknowledged(database.prisma, clients.figures.acknowledged);
  } finally {
    await database.close();
  }
  const count = (kind: Acknowledged["kind"]) => clients.figures.acknowledged.filter((a) => a.kind === kind).length;
  return {
    label: options.label,
    seed: options.seed,
    kills,
    killsAfterWrite,
    databaseCrashes,
    unexpectedExits: server.unexpectedExits,
    requests: clients.figures.attempts,
    transportFailures: clients.figures.transportFailures,
    errorAnswers: clients.figures.errorAnswers,
    acknowledged: { executions: count("execution"), composites: count("composite"), openLineageRuns: count("openlineage"), total: clients.figures.acknowledged.length },
    missing,
    integrityChecks,
    violations,
    violationSamples,
    elapsedMs: Date.now() - started,
  };
}

/** The figures as CI prints them: one line a reader can grep, then what went wrong, if anything. */
export function formatFigures(f: CrashFigures): string {
  const totalViolations = Object.values(f.violations).reduce((a, b) => a + b, 0);
  const lines = [
    `crash suite (${f.label}, seed ${f.seed}): ${f.kills} kills survived (${f.killsAfterWrite} right after a database write), ${f.databaseCrashes} database crashes, ${f.acknowledged.total} acknowledged writes checked ` +
      `(${f.acknowledged.executions} executions, ${f.acknowledged.composites} composites, ${f.acknowledged.openLineageRuns} OpenLineage runs), ${f.missing.length} lost, ` +
      `${totalViolations} invariant violations found in ${f.integrityChecks} integrity checks; ${f.requests} requests, ${f.transportFailures} cut by kills, ${f.unexpectedExits.length} unexpected exits, ${(f.elapsedMs / 1000).toFixed(1)} s`,
  ];
  const errors = Object.entries(f.errorAnswers);
  if (errors.length > 0) lines.push(`  error answers: ${errors.map(([code, n]) => `${code} ${n}`).join(", ")}`);
  for (const line of [...f.missing.slice(0, 10), ...f.violationSamples.slice(0, 10), ...f.unexpectedExits.map((e) => e.slice(0, 500))]) lines.push(`  ${line}`);
  return lines.join("\n");
}
