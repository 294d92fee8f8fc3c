import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "../../support/free-port";
import { postgresBinaries } from "../../support/own-postgres";

/**
 * A PostgreSQL the crash suite may stop with `pg_ctl stop -m immediate` (a crash: no checkpoint, WAL
 * replay at start) and start again. It must run with fsync on, or a stop would lose commits no
 * matter what provgraph does. Either the one CRASH_PG_* names (.ci/run starts it), or one of our own.
 */
export interface CrashPostgres {
  /** An admin URL (the suite creates its own database on it). */
  url: string;
  /** Its data directory (the suite watches pg_wal there to kill right after a commit). */
  dataDirectory: string;
  stopImmediately(): void;
  start(): void;
  /** Stops a cluster this suite started (by pg_ctl, which signals the postmaster's PID); a given one is left running. */
  dispose(): void;
}

const runAs = (user: string | undefined, command: string, args: string[]) =>
  user && os.userInfo().username !== user ? execFileSync("runuser", ["-u", user, "--", command, ...args], { stdio: "pipe" }) : execFileSync(command, args, { stdio: "pipe" });

function cluster(url: string, bin: string, data: string, user: string | undefined, socketDir: string, port: number, owned: boolean): CrashPostgres {
  const pgCtl = path.join(bin, "pg_ctl");
  const options = `-p ${port} -k ${socketDir} -c listen_addresses=127.0.0.1 -c fsync=on -c synchronous_commit=on -c full_page_writes=on`;
  return {
    url,
    dataDirectory: data,
    stopImmediately: () => void runAs(user, pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"]),
    start: () => void runAs(user, pgCtl, ["-D", data, "-l", path.join(path.dirname(data), "server.log"), "-w", "-t", "60", "-o", options, "start"]),
    dispose: () => {
      if (!owned) return;
      spawnSync(user && os.userInfo().username !== user ? "runuser" : pgCtl, user && os.userInfo().username !== user ? ["-u", user, "--", pgCtl, "-D", data, "-m", "fast", "-w", "stop"] : ["-D", data, "-m", "fast", "-w", "stop"], { stdio: "ignore" });
      fs.rmSync(path.dirname(data), { recursive: true, force: true });
    },
  };
}

/** The cluster CRASH_PG_URL + CRASH_PG_DATA (+ CRASH_PG_BIN, CRASH_PG_USER) name, or undefined. */
export function givenCrashPostgres(): CrashPostgres | undefined {
  const url = process.env.CRASH_PG_URL;
  if (!url) return undefined;
  const data = process.env.CRASH_PG_DATA;
  if (!data) throw new Error("CRASH_PG_URL is set but CRASH_PG_DATA (the cluster's data directory, for pg_ctl) is not");
  const port = Number(new URL(url).port || 5432);
  return cluster(url, process.env.CRASH_PG_BIN ?? postgresBin(), data, process.env.CRASH_PG_USER ?? defaultUser(), process.env.CRASH_PG_SOCKET_DIR ?? path.dirname(data), port, false);
}

/** initdb + pg_ctl start of a fresh fsync-on cluster on a free loopback port (never the shared 55432). */
export async function startOwnCrashPostgres(): Promise<CrashPostgres> {
  const bin = postgresBin();
  const user = defaultUser();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-crash-pg-"));
  fs.chmodSync(root, 0o755);
  if (user && os.userInfo().username !== user) execFileSync("chown", [user, root]);
  const data = path.join(root, "data");
  runAs(user, path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8"]);
  const port = await freePort();
  const pg = cluster(`postgresql://postgres@127.0.0.1:${port}/postgres`, bin, data, user, root, port, true);
  pg.start();
  return pg;
}

function postgresBin(): string {
  const bin = postgresBinaries();
  if (!bin) throw new Error("no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql)");
  return bin;
}

/** pg_ctl refuses to run as root: as root, run it as postgres. */
function defaultUser(): string | undefined {
  return os.userInfo().uid === 0 ? "postgres" : undefined;
}

