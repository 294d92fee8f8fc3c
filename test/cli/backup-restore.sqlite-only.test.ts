import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { type CliServer, ensureBuilt, runCli, startCliServer } from "../support/cli";
import { fixtureFiles, withBaseFields } from "../support/openlineage";

/**
 * `provgraph backup` and `provgraph restore` on the embedded SQLite database, with the real command:
 * a backup taken while the server serves and writes, restored elsewhere, serves the same store, and
 * every invariant holds; a backup that breaks one is refused before anything changes.
 */
const TOUR = fs.readFileSync(path.join(__dirname, "..", "..", "README.md"), "utf8").match(/```graphql\n(mutation Record[\s\S]*?)```/)![1];
const LINEAGE = `{ lineage(artifactId: "art_9c6ec26e20ae3bb0a61d8d5a0905f3d570532266") { nodes { depth artifact { id originalName } } edges { sourceId targetId kind groupId runId } } }`;
const COUNTS = `{ executions(first: 500) { edges { node { runId status outputs { artifact { id } } } } } }`;

// Each test runs servers and the real command several times: seconds each on a busy machine.
jest.setTimeout(600_000);

describe("provgraph backup and restore (SQLite)", () => {
  let dir: string;
  const servers: CliServer[] = [];
  const serve = async (file: string) => {
    const server = await startCliServer({ DATABASE_URL: `file:${file}` });
    servers.push(server);
    return server;
  };
  const gql = async (server: CliServer, query: string) => {
    const response = await fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) });
    return (await response.json()) as { data?: any; errors?: unknown[] };
  };

  beforeAll(() => {
    ensureBuilt();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-backup-"));
  }, 900_000);
  afterAll(async () => {
    for (const server of servers) await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("a backup taken while the server runs restores into a store that answers the same, with 0 integrity violations", async () => {
    const live = path.join(dir, "live", "provgraph.db");
    const server = await serve(live);
    expect((await gql(server, TOUR)).errors).toBeUndefined();
    const events = fixtureFiles().slice(0, 40).flatMap(({ events }) => events.map(withBaseFields));
    fs.writeFileSync(path.join(dir, "events.json"), JSON.stringify(events));
    const ingested = await runCli(["ingest", path.join(dir, "events.json"), "--url", server.url]);
    expect(ingested.stdout).toMatch(/ stored, /);
    const before = { lineage: await gql(server, LINEAGE), runs: await gql(server, COUNTS) };

    const backup = path.join(dir, "backup.db");
    const taken = await runCli(["backup", backup], { DATABASE_URL: `file:${live}` });
    expect([taken.code, taken.stdout]).toEqual([0, expect.stringMatching(new RegExp(`^backed up ${live} to ${backup}: \\d+ pages, \\d+ bytes \\(checked\\)\\n$`))]);
    const again = await runCli(["backup", backup], { DATABASE_URL: `file:${live}` });
    expect([again.code, again.stderr]).toEqual([7, `provgraph: ${backup} exists: a backup never overwrites a file (remove it, or choose another name)\n`]);

    // the server wrote on after the backup: the restore has the store as of the backup
    expect((await gql(server, `mutation { registerOperation(input: { name: "after-backup", version: "1", kind: CREATOR, inputs: [], outputs: [] }) { __typename } }`)).errors).toBeUndefined();

    const target = path.join(dir, "restored", "provgraph.db");
    const restored = await runCli(["restore", backup], { DATABASE_URL: `file:${target}` });
    expect([restored.code, restored.stdout, restored.stderr]).toEqual([0, `restored ${backup} to ${target}: 0 integrity violations\n`, ""]);
    expect(fs.readdirSync(path.dirname(target)).filter((name) => name.includes("restoring"))).toEqual([]);

    const local = await runCli(["integrity", "--local"], { DATABASE_URL: `file:${target}` });
    expect([local.code, local.stdout.split("\n").slice(-2)]).toEqual([0, ["0 violations", ""]]);
    const copy = await serve(target);
    expect({ lineage: await gql(copy, LINEAGE), runs: await gql(copy, COUNTS) }).toEqual(before);
    expect((await gql(copy, `{ operation(name: "after-backup", version: "1") { id } }`)).errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: "NOT_FOUND" }) })]);
    const remote = await runCli(["integrity", "--url", copy.url]);
    expect([remote.code, remote.stdout.split("\n").slice(-2)]).toEqual([0, ["0 violations", ""]]);

    // restoring over a database: refused while its server runs, and without --force; with it, the old one is kept
    const running = await runCli(["restore", backup, "--force"], { DATABASE_URL: `file:${target}` });
    expect([running.code, running.stderr]).toEqual([7, expect.stringMatching(/is in use by another provgraph process: .*: stop the server before restoring\n$/)]);
    await copy.stop();
    const unforced = await runCli(["restore", backup], { DATABASE_URL: `file:${target}` });
    expect([unforced.code, unforced.stderr]).toEqual([7, expect.stringMatching(/exists: stop the server, then restore with --force/)]);
    const forced = await runCli(["restore", backup, "--force"], { DATABASE_URL: `file:${target}` });
    expect([forced.code, forced.stdout]).toEqual([0, expect.stringMatching(/; the database it replaced is kept as .*provgraph\.db\.before-restore-\S+\n$/)]);
  });

  test("a backup that breaks an invariant is refused with the report, exit 1, and nothing is written; a file that is no database is exit 5", async () => {
    const source = path.join(dir, "broken-source.db");
    const server = await serve(source);
    expect((await gql(server, TOUR)).errors).toBeUndefined();
    await server.stop();
    const broken = path.join(dir, "broken-backup.db");
    expect((await runCli(["backup", broken], { DATABASE_URL: `file:${source}` })).code).toBe(0);
    // an edge whose source artifact is gone: what a lost write or a hand edit would leave
    const db = new BetterSqlite3(broken);
    db.pragma("foreign_keys = OFF");
    db.prepare(`DELETE FROM "Artifact" WHERE id = ?`).run("art_93288de15f89bede8a558de658cc1f7f42d3c0e1");
    db.close();

    const target = path.join(dir, "never", "provgraph.db");
    const refused = await runCli(["restore", broken], { DATABASE_URL: `file:${target}` });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/\nedge-endpoints\s+\d+\s+[1-9]\d*\n/);
    expect(refused.stdout).toMatch(new RegExp(`restore refused: ${broken} breaks provgraph's invariants; ${target} is unchanged\\n$`));
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.readdirSync(path.dirname(target)).filter((name) => !name.endsWith(".lock"))).toEqual([]);

    fs.writeFileSync(path.join(dir, "notes.txt"), "not a database at all, but long enough to have a header of its own ".repeat(20));
    const notDatabase = await runCli(["restore", path.join(dir, "notes.txt")], { DATABASE_URL: `file:${target}` });
    expect([notDatabase.code, notDatabase.stderr]).toEqual([5, expect.stringMatching(/^provgraph: .*notes\.txt is not a SQLite database: /)]);
  });

  test("on PostgreSQL, backup and restore point at pg_dump and pg_restore (exit 2)", async () => {
    const answer = await runCli(["backup", path.join(dir, "pg.dump")], { DATABASE_URL: "postgresql://provgraph@127.0.0.1:5432/provgraph" });
    expect([answer.code, answer.stderr]).toEqual([2, "provgraph: provgraph backup copies the embedded SQLite database; on PostgreSQL, back up with pg_dump and restore with pg_restore (docs/operating/backups.md)\n"]);
  });
});
