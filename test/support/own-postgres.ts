import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port";

const run = promisify(execFile);

/**
 * A PostgreSQL server of the test's own, on a free loopback port, that the test may stop and start
 * again (the shared one at 55432 is never stopped). Debian's PostgreSQL (the newest installed
 * version), run as the postgres user as scripts/pg-start.sh does; its data lives in a temporary
 * folder removed by destroy().
 */
export interface OwnPostgres {
  /** postgresql://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  start(): Promise<void>;
  /** `fast` (default): cuts the sessions, as a restart does; `immediate`: as a crash does. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  destroy(): Promise<void>;
}

export function postgresBinaries(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!fs.existsSync(root)) return undefined;
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, "bin", "pg_ctl"))).sort((a, b) => Number(a) - Number(b));
  return versions.length ? path.join(root, versions[versions.length - 1], "bin") : undefined;
}

export async function createOwnPostgres(): Promise<OwnPostgres> {
  const bin = postgresBinaries();
  if (!bin) throw new Error("PostgreSQL is not installed (apt-get install postgresql)");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-own-pg-"));
  fs.chmodSync(dir, 0o777);
  const data = path.join(dir, "data");
  const asPostgres = (command: string, args: string[]) => run("runuser", ["-u", "postgres", "--", path.join(bin, command), ...args], { timeout: 60_000 });
  await asPostgres("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  let running = false;
  const pg: OwnPostgres = {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: async () => {
      await asPostgres("pg_ctl", ["-D", data, "-l", path.join(dir, "server.log"), "-w", "-t", "60", "-o", options, "start"]);
      running = true;
    },
    stop: async (mode = "fast") => {
      await asPostgres("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"]);
      running = false;
    },
    destroy: async () => {
      if (running) await pg.stop("immediate").catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  await pg.start();
  return pg;
}

