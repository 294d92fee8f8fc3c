import { Writable } from "node:stream";
import { buildApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/client";
import { migrateDatabase } from "../../src/db/migrate";
import { createLogger } from "../../src/logger";
import { createTestDatabaseUrl } from "../support/test-database";

/**
 * An older provgraph started on a database a newer one migrated (a rolling upgrade, or a rollback that
 * should not happen): it starts, and says so in a warn line naming the migrations it does not know.
 */
describe("a database migrated by a newer version", () => {
  test("migrating reports the migrations this version does not know; start-up warns about them", async () => {
    const { url, drop } = await createTestDatabaseUrl();
    try {
      expect(await migrateDatabase(url)).toEqual({ applied: expect.arrayContaining([expect.any(String)]), unknown: [] });
      const database = openDatabase(url);
      await database.prisma.$executeRawUnsafe(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ('newer', 'x', CURRENT_TIMESTAMP, '29991231000000_from_a_newer_version', CURRENT_TIMESTAMP, 1)`,
      );
      await database.close();
      expect(await migrateDatabase(url)).toEqual({ applied: [], unknown: ["29991231000000_from_a_newer_version"] });

      const lines: Record<string, unknown>[] = [];
      const sink = new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split("\n")) if (line) lines.push(JSON.parse(line));
          done();
        },
      });
      const app = await buildApp(loadConfig({ DATABASE_URL: url, PORT: "0" }), { logger: createLogger("info", sink) });
      await app.stop();
      expect(lines.filter((line) => (line.level as number) >= 40 && (line.unknown as unknown))).toEqual([
        expect.objectContaining({ unknown: ["29991231000000_from_a_newer_version"], msg: expect.stringMatching(/^the database has migrations this version of provgraph does not know/) }),
      ]);
    } finally {
      await drop();
    }
  });
});
