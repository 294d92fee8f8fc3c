import { openDatabase, openReadDatabase } from "../../src/db/client";
import { genericPlanSql, preparedSql, RUNS_BEFORE_NAMED } from "../../src/db/prepared-statements";
import { createTestDatabaseUrl } from "../support/test-database";

/**
 * On PostgreSQL a statement marked GENERIC_PLAN_SQL runs under plan_cache_mode force_generic_plan
 * and every other statement with parameters under the session's own setting (src/db/plan-modes.ts):
 * each statement reads the mode it ran under with current_setting, on a reader of one connection, so
 * every statement shares the connection whose mode is followed.
 */
describe("PostgreSQL: plan modes per statement", () => {
  let url: string;
  let dropDatabase: () => Promise<void>;

  beforeAll(async () => {
    ({ url, drop: dropDatabase } = await createTestDatabaseUrl());
  });
  afterAll(async () => {
    await dropDatabase();
  });

  const MODE = "SELECT current_setting('plan_cache_mode'), $1::int";
  type Reader = ReturnType<typeof openReadDatabase>;
  /** `use` on a reader of one connection opened on `readUrl`, closed after. */
  async function onOneConnection(readUrl: string, use: (reader: Reader) => Promise<void>): Promise<void> {
    const reader = openReadDatabase(readUrl, { poolSize: 1 });
    try {
      await use(reader);
    } finally {
      await reader.close();
    }
  }
  const modeOf = async (reader: Reader, sql: string) => String((await reader.readRows(sql, [1])).rows[0][0]);

  test("a marked statement runs on the generic plan; the next unmarked one under the session's setting again", async () => {
    await onOneConnection(url, async (reader) => {
      const sequence: string[] = [];
      // Past the runs before a text is named: the named statement too.
      for (let run = 0; run < RUNS_BEFORE_NAMED + 2; run++) {
        sequence.push(await modeOf(reader, genericPlanSql("postgres", MODE)));
        sequence.push(await modeOf(reader, genericPlanSql("postgres", `${MODE} + 0`)));
        sequence.push(await modeOf(reader, MODE));
        sequence.push(await modeOf(reader, preparedSql("postgres", MODE)));
      }
      expect(sequence).toEqual(Array.from({ length: RUNS_BEFORE_NAMED + 2 }, () => ["force_generic_plan", "force_generic_plan", "auto", "auto"]).flat());
      // A statement without parameters changes nothing: it plans the same either way.
      await modeOf(reader, genericPlanSql("postgres", MODE));
      expect(String((await reader.readRows("SELECT current_setting('plan_cache_mode')", [])).rows[0][0])).toBe("force_generic_plan");
    });
  });

  test("the session's own setting (from the URL) is what an unmarked statement gets back", async () => {
    const custom = new URL(url);
    custom.searchParams.set("options", "-c plan_cache_mode=force_custom_plan");
    await onOneConnection(custom.toString(), async (reader) => {
      expect(await modeOf(reader, MODE)).toBe("force_custom_plan");
      expect(await modeOf(reader, genericPlanSql("postgres", MODE))).toBe("force_generic_plan");
      expect(await modeOf(reader, MODE)).toBe("force_custom_plan");
    });
  });

  test("after a ROLLBACK undid the setting, the next marked statement sets it again", async () => {
    await onOneConnection(url, async (reader) => {
      await reader.readRows("BEGIN", []);
      expect(await modeOf(reader, genericPlanSql("postgres", MODE))).toBe("force_generic_plan");
      await reader.readRows("ROLLBACK", []);
      expect(String((await reader.readRows("SELECT current_setting('plan_cache_mode')", [])).rows[0][0])).toBe("auto");
      expect(await modeOf(reader, genericPlanSql("postgres", MODE))).toBe("force_generic_plan");
      expect(await modeOf(reader, MODE)).toBe("auto");
    });
  });

  test("the writer's connections are left as they come: only read pools follow the marks", async () => {
    const database = openDatabase(url);
    try {
      const rows = (await database.prisma.$queryRawUnsafe(genericPlanSql("postgres", "SELECT current_setting('plan_cache_mode') AS mode, $1::int AS n"), 1)) as { mode: string }[];
      expect(rows[0].mode).toBe("auto");
      expect(String((await database.readRows(genericPlanSql("postgres", MODE), [1])).rows[0][0])).toBe("force_generic_plan");
    } finally {
      await database.close();
    }
  });

  test("through a pooler in transaction mode (pgbouncer=true) nothing is set: a setting would outlive the transaction", async () => {
    const pooled = new URL(url);
    pooled.searchParams.set("pgbouncer", "true");
    await onOneConnection(pooled.toString(), async (reader) => {
      expect(await modeOf(reader, genericPlanSql("postgres", MODE))).toBe("auto");
    });
  });
});
