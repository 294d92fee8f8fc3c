import { plannedLength } from "../../src/db/json-list";

/**
 * Statements PostgreSQL keeps prepared (src/db/prepared-statements.ts): which are named, from which
 * run, how many texts at most, and the lists' planned lengths that keep a statement's texts few.
 */
type PreparedModule = typeof import("../../src/db/prepared-statements");

/** The module with its own, empty record of texts (the record is the process's). */
function fresh(): PreparedModule {
  let loaded: PreparedModule | undefined;
  jest.isolateModules(() => {
    loaded = jest.requireActual("../../src/db/prepared-statements") as PreparedModule;
  });
  return loaded!;
}

type RowReader = import("../../src/db/prepared-statements").RowReader;

/** What a marking reader hands on for `SELECT 2` on PostgreSQL; on SQLite it must be the reader itself. */
async function marksOf(marking: (reader: RowReader) => RowReader): Promise<string[]> {
  const seen: string[] = [];
  const reader = (provider: "sqlite" | "postgres"): RowReader => ({ provider, readRows: async (sql: string) => (seen.push(sql), { columnNames: [], rows: [] }) });
  const sqlite = reader("sqlite");
  expect(marking(sqlite)).toBe(sqlite);
  await marking(reader("postgres")).readRows("SELECT 2", []);
  return seen;
}

describe("prepared statements on PostgreSQL", () => {
  test("a statement not marked is never named, however often it runs", () => {
    const { preparedStatementName } = fresh();
    for (let run = 0; run < 10; run++) expect(preparedStatementName("SELECT 1")).toBeUndefined();
  });

  test("a marked statement is named from its third run on, by its text: the same name each time, another for another text", () => {
    const { preparedStatementName, preparedSql, RUNS_BEFORE_NAMED } = fresh();
    const sql = preparedSql("postgres", "SELECT $1::int");
    for (let run = 0; run < RUNS_BEFORE_NAMED; run++) expect(preparedStatementName(sql)).toBeUndefined();
    const name = preparedStatementName(sql);
    expect(name).toMatch(/^provgraph_[0-9a-f]{32}$/);
    expect(name!.length).toBeLessThanOrEqual(63);
    expect(preparedStatementName(sql)).toBe(name);
    const other = preparedSql("postgres", "SELECT $1::text");
    for (let run = 0; run < RUNS_BEFORE_NAMED; run++) preparedStatementName(other);
    expect(preparedStatementName(other)).not.toBe(name);
  });

  test("past the process's limit of texts, a new text runs unnamed and the named ones keep their names", () => {
    const { preparedStatementName, preparedSql, PREPARED_TEXTS_PER_PROCESS, RUNS_BEFORE_NAMED } = fresh();
    const nameOf = (sql: string) => {
      for (let run = 0; run < RUNS_BEFORE_NAMED; run++) preparedStatementName(sql);
      return preparedStatementName(sql);
    };
    const named = Array.from({ length: PREPARED_TEXTS_PER_PROCESS }, (_, i) => nameOf(preparedSql("postgres", `SELECT ${i}`)));
    expect(new Set(named).size).toBe(PREPARED_TEXTS_PER_PROCESS);
    expect(named.every((name) => name !== undefined)).toBe(true);
    expect(nameOf(preparedSql("postgres", "SELECT 'one more'"))).toBeUndefined();
    expect(preparedStatementName(preparedSql("postgres", "SELECT 0"))).toBe(named[0]);
  });

  test("only PostgreSQL's texts are marked, and a reader marks every statement it runs there", async () => {
    const { preparedSql, preparedReader, PREPARED_SQL } = fresh();
    expect(preparedSql("sqlite", "SELECT 1")).toBe("SELECT 1");
    expect(preparedSql("postgres", "SELECT 1")).toBe(`${PREPARED_SQL}SELECT 1`);
    expect(await marksOf(preparedReader)).toEqual([`${PREPARED_SQL}SELECT 2`]);
  });

  test("a text marked for one generic plan is a prepared text too (named the same way); only on PostgreSQL", async () => {
    const { genericPlanSql, genericPlanReader, preparedStatementName, GENERIC_PLAN_SQL, PREPARED_SQL, RUNS_BEFORE_NAMED } = fresh();
    expect(genericPlanSql("sqlite", "SELECT 1")).toBe("SELECT 1");
    const marked = genericPlanSql("postgres", "SELECT 1");
    expect(marked).toBe(`${GENERIC_PLAN_SQL}SELECT 1`);
    expect(marked.startsWith(PREPARED_SQL)).toBe(true);
    const names = Array.from({ length: RUNS_BEFORE_NAMED + 1 }, () => preparedStatementName(marked));
    expect(names[RUNS_BEFORE_NAMED]).toMatch(/^provgraph_[0-9a-f]{32}$/);
    expect(await marksOf(genericPlanReader)).toEqual([`${GENERIC_PLAN_SQL}SELECT 2`]);
  });

  test("a URL that goes through a pooler in transaction mode (pgbouncer=true) keeps no prepared statements", () => {
    const { keepsPreparedStatements } = fresh();
    expect(keepsPreparedStatements("postgresql://u@127.0.0.1:5432/db")).toBe(true);
    expect(keepsPreparedStatements("postgresql://u@127.0.0.1:6432/db?pgbouncer=true")).toBe(false);
    expect(keepsPreparedStatements("postgresql://u@127.0.0.1:6432/db?sslmode=disable&pgbouncer=true")).toBe(false);
    expect(keepsPreparedStatements("postgresql://u@127.0.0.1:5432/db?pgbouncer=false")).toBe(true);
  });
});

describe("a bound list's planned length (the LIMIT that tells PostgreSQL's planner how long it is)", () => {
  test("never cuts a list, and gives at most eight texts for every length", () => {
    const forms = new Set<string>();
    for (let length = 0; length <= 5_000; length++) {
      const limit = plannedLength("postgres", length);
      forms.add(limit);
      if (limit === "") {
        expect(length).toBeGreaterThan(64);
        continue;
      }
      const planned = Number(/^ LIMIT (\d+)$/.exec(limit)![1]);
      expect(planned).toBeGreaterThanOrEqual(length);
      expect(planned).toBeLessThanOrEqual(Math.max(1, 2 * length));
    }
    expect(forms.size).toBe(8);
  });

  test("adds nothing on SQLite, and refuses a length that is not one", () => {
    expect(plannedLength("sqlite", 3)).toBe("");
    expect(() => plannedLength("postgres", -1)).toThrow(/non-negative integer/);
    expect(() => plannedLength("postgres", 1.5)).toThrow(/non-negative integer/);
  });
});
