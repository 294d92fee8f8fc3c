import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../../src/db/client";
import { migrateDatabase } from "../../src/db/migrate";

// SQLITE_SYNCHRONOUS reaches the writer connection: NORMAL (1) by default, FULL (2) when asked.
// Files of its own, on either test database.
describe("SQLite durability setting", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "provgraph-sync-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test.each([
    [undefined, 1],
    ["NORMAL", 1],
    ["FULL", 2],
  ] as const)("synchronous %s: the writer reports %d", async (setting, expected) => {
    const url = `file:${path.join(dir, `sync-${setting ?? "default"}.db`)}`;
    await migrateDatabase(url);
    const database = openDatabase(url, setting ? { sqliteSynchronous: setting } : {});
    try {
      const rows = await database.prisma.$queryRawUnsafe<{ synchronous: number | bigint }[]>("PRAGMA synchronous");
      expect(Number(rows[0].synchronous)).toBe(expected);
    } finally {
      await database.close();
    }
  });
});
