import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { lockSqliteFile } from "../../src/db/sqlite-owner-lock";
import { type ServerProcess, spawnServer, startServer } from "../support/server-process";

/** The output lines that are not provgraph's JSON log lines. */
const nonLogLines = (output: string) => output.split("\n").filter((line) => line !== "" && !line.startsWith('{"level":'));

const stop = async (server: ServerProcess, signal: NodeJS.Signals = "SIGTERM") => {
  if (server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill(signal);
    await server.exited;
  }
};

// Issue 13, point 6: a second process on the same SQLite file is refused with one line; the lock
// dies with its process, however it ends.
describe("one provgraph process per SQLite file", () => {
  let dir: string;
  let env: Record<string, string>;
  const started: ServerProcess[] = [];
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-owner-"));
    env = { PORT: "0", DATABASE_URL: `file:${path.join(dir, "shared.db")}` };
  });
  afterAll(async () => {
    for (const server of started) await stop(server);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("the second process exits 1 with one line naming the file; the first keeps serving", async () => {
    const first = await startServer(env);
    started.push(first);
    const second = spawnServer(env);
    expect(await second.exited).toBe(1);
    expect(nonLogLines(second.output())).toEqual([
      `provgraph: SQLite file ${path.join(dir, "shared.db")} is in use by another provgraph process: one process per SQLite file (stop the other one, or use PostgreSQL for several instances)`,
    ]);
    const response = await fetch(first.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "{ executions(first: 1) { edges { node { runId } } } }" }) });
    expect(await response.json()).toEqual({ data: { executions: { edges: [] } } });
    await stop(first);
  });

  test("after the owner stops (SIGTERM) or is killed (SIGKILL), the next process starts", async () => {
    const afterStop = await startServer(env);
    started.push(afterStop);
    await stop(afterStop, "SIGKILL");
    const afterKill = await startServer(env);
    started.push(afterKill);
    expect((await fetch(afterKill.url.replace("/graphql", "/readyz"))).status).toBe(200);
  });
});

describe("the SQLite owner lock within one process", () => {
  test("apps of one process share it; it is released when the last one lets go", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-owner-"));
    const file = path.join(dir, "one.db");
    const tryLock = () => {
      const other = new BetterSqlite3(`${file}.lock`, { timeout: 0 });
      try {
        other.exec("BEGIN IMMEDIATE");
        other.exec("ROLLBACK");
        return "free";
      } catch (error) {
        return (error as { code: string }).code;
      } finally {
        other.close();
      }
    };
    const releaseFirst = lockSqliteFile(file);
    const releaseSecond = lockSqliteFile(file);
    expect(tryLock()).toBe("SQLITE_BUSY");
    releaseFirst();
    expect(tryLock()).toBe("SQLITE_BUSY");
    releaseSecond();
    expect(tryLock()).toBe("free");
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
