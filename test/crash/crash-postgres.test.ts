import { randomUUID } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { type CrashFigures, formatFigures, runCrashScenario } from "./harness/crash-run";
import { type CrashPostgres, givenCrashPostgres, startOwnCrashPostgres } from "./harness/postgres-cluster";

// Issue 13, crash suite on PostgreSQL with fsync on: as on SQLite (12 writers, SIGKILLs, restarts,
// integrity after each), and once mid-load PostgreSQL itself is stopped immediately (no checkpoint:
// WAL replay at start) and started again. CRASH_PG_URL + CRASH_PG_DATA name the cluster (.ci/run
// starts one); without them, outside CI, the suite starts a cluster of its own on a free port.

const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
/** Enough kills, writers and load that a kill often lands between two commits of one recording (the scratch check in the issue 13 report). */
const KILLS = 12;
const CLIENTS = 12;

async function admin<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

describe("crash suite: PostgreSQL (fsync on)", () => {
  let cluster: CrashPostgres;
  let figures: CrashFigures;
  const name = `provgraph_crash_${randomUUID().replace(/-/g, "")}`;

  beforeAll(async () => {
    const given = givenCrashPostgres();
    if (!given && process.env.CI) throw new Error("CI=true and CRASH_PG_URL / CRASH_PG_DATA are not set: .ci/run starts the fsync-on cluster for this suite");
    cluster = given ?? (await startOwnCrashPostgres());
    const fsync = await admin(cluster.url, async (client) => (await client.query("SHOW fsync")).rows[0].fsync);
    if (fsync !== "on") throw new Error(`the crash cluster runs with fsync=${fsync}: a crash of it could lose commits whatever provgraph does`);
    await admin(cluster.url, (client) => client.query(`CREATE DATABASE "${name}"`));
    const url = new URL(cluster.url);
    url.pathname = `/${name}`;
    figures = await runCrashScenario({ databaseUrl: url.toString(), label: "postgres", clients: CLIENTS, kills: KILLS, loadBetweenKillsMs: [500, 1500], seed: SEED, postgres: cluster, commitWrites: path.join(cluster.dataDirectory, "pg_wal") });
    process.stdout.write(`\n${formatFigures(figures)}\n`);
  }, 300_000);
  afterAll(async () => {
    if (!cluster) return;
    await admin(cluster.url, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).catch(() => undefined);
    cluster.dispose();
  });

  test(`survived ${KILLS} kills and one immediate PostgreSQL stop, with writes acknowledged in between (executions, composites and OpenLineage runs)`, () => {
    expect([figures.kills, figures.databaseCrashes]).toEqual([KILLS, 1]);
    expect(figures.killsAfterWrite).toBeGreaterThan(0);
    expect([figures.acknowledged.executions > 0, figures.acknowledged.composites > 0, figures.acknowledged.openLineageRuns > 0]).toEqual([true, true, true]);
    expect(figures.integrityChecks).toBe(KILLS + 2);
  });

  test("every acknowledged write is in the store as it was answered", () => {
    expect(figures.missing).toEqual([]);
  });

  test("the integrity checker found no violation after any restart", () => {
    expect([Object.values(figures.violations).reduce((a, b) => a + b, 0), figures.violationSamples]).toEqual([0, []]);
  });

  test("the server never died by itself (not even while PostgreSQL was down)", () => {
    expect(figures.unexpectedExits).toEqual([]);
  });
});
