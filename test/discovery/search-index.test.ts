import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { migrationsDirectory } from "../../src/db/migrate";
import { indexSearchableWrites, searchPage } from "../../src/services/discovery";
import { comparedText, searchedText } from "../../src/services/discovery/search-documents";
import { postgresMatchesAtLeast, sqliteMatchesAtLeast } from "../../src/services/discovery/search-lanes";
import { markedMatchesAtLeast, queryPhrases, SEPARATOR_RUN } from "../../src/services/discovery/search-phrases";
import { SEARCH_RANKS } from "../../src/services/discovery/search-text";
import { postgresCompared, postgresSearched, sqliteCompared, sqliteSearched } from "../../src/services/discovery/search-text-sql";
import { GroupCommit, type SearchableWrite, stageSourceArtifacts } from "../../src/services/recording";
import { createTestDatabase, type TestDatabase, testProvider } from "../support/test-database";

/**
 * The search index below the API: kept inside the recording transaction, and built for a store that
 * existed before it by its migration's own statements — which give what the recording path gives.
 */

const canRead = async (subjects: readonly unknown[]) => subjects.map(() => true);
const everything = async (db: TestDatabase, query: string) =>
  (await searchPage(db.database, { query, first: 100, canRead })).hits.map((h) => `${h.rank} ${h.kind} ${h.label} ${h.matched.field}${h.kind === "DATASET" || h.kind === "COLUMN" ? "" : ` ${h.id}`}`);
const entryCount = async (db: TestDatabase) => Number((await db.database.prisma.$queryRawUnsafe<{ n: number | bigint }[]>(`SELECT COUNT(*) AS n FROM "SearchEntry"`))[0].n);

describe(`the search index in the recording transaction (${testProvider})`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  const finishUnit = (tx: Parameters<typeof indexSearchableWrites>[0], writes: { searchable: readonly SearchableWrite[] }) => indexSearchableWrites(tx, db.database.provider, writes.searchable);
  const artifact = (name: string) => ({ id: `art_${Buffer.from(name).toString("hex").padEnd(40, "0")}`, artifactType: "csv", contentHash: `sha256:${name}`, originalName: name, metadata: null });

  test("entries a unit's finisher wrote roll back with its transaction (here: the journal fails before COMMIT)", async () => {
    let failJournal = true;
    const commits = new GroupCommit(db.database, {
      finishUnit,
      journal: {
        append: async (_tx, events) => {
          if (failJournal) throw new Error("journal down");
          return events.map((_, i) => ({ sequence: i + 1, loggedAt: new Date() }));
        },
      },
    });
    const unit = (name: string) => (tx: Parameters<typeof stageSourceArtifacts>[0], scope: { emit(event: never): void }) =>
      stageSourceArtifacts(tx, [artifact(name)], new Date()).then((created) => {
        scope.emit({ type: "LINEAGE_RECORDED", runId: "run_x", edges: [] } as never);
        return created;
      });
    await expect(commits.run(unit("kilo-a1"))).rejects.toThrow("journal down");
    expect(await entryCount(db)).toBe(0);
    failJournal = false;
    await commits.run(unit("kilo-a2"));
    expect(await entryCount(db)).toBe(1);
    expect(await everything(db, "kilo-a")).toEqual([`PREFIX ARTIFACT kilo-a2 LABEL ${artifact("kilo-a2").id}`]);
  });

  test("a unit that throws after staging leaves nothing in the index; the units beside it in the transaction are indexed", async () => {
    const commits = new GroupCommit(db.database, { finishUnit, maxTransactionMs: 60_000 });
    const outcomes = await Promise.allSettled(
      ["kilo-b1", "kilo-b2", "kilo-b3"].map((name, i) =>
        commits.run(async (tx) => {
          await stageSourceArtifacts(tx, [artifact(name)], new Date());
          if (i === 1) throw new Error("refused after staging");
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(commits.stats()).toMatchObject({ transactions: 1, units: 3 });
    expect((await everything(db, "kilo-b")).map((hit) => hit.split(" ")[2])).toEqual(["kilo-b1", "kilo-b3"]);
  });
});

describe(`the fold and marks in SQL agree with JavaScript's (${testProvider})`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  // Letters of both cases, digits, every kind of separator, the marks themselves, other controls, non-ASCII letters and an astral character.
  const character = fc.constantFrom(..."AaZz09_./-: \t\u0001\u0002\u0003\u0004éÉΩω€🎉".split(/(?:)/u), "x", "Y", "7", "|", "~");
  const text = fc.array(character, { maxLength: 40 }).map((chars) => chars.join(""));
  const long = fc.constantFrom("x".repeat(700), "É".repeat(600) + "tail", "🎉".repeat(1_100));

  test("for any text, and for texts longer than what is compared or searched", async () => {
    const samples = [...fc.sample(text, 300), ...fc.sample(long, 3), "", "Ünïcode_Data.CSV", "o'brien's 100%_done\\file"];
    const sql =
      testProvider === "sqlite"
        ? samples.map(() => `SELECT ${sqliteCompared("?")}, ${sqliteSearched("?")}`).join(" UNION ALL ")
        : samples.map((_, i) => `SELECT ${postgresCompared(`$${2 * i + 1}::text`)}, ${postgresSearched(`$${2 * i + 2}::text`)}`).join(" UNION ALL ");
    const { rows } = await db.database.readRows(sql, samples.flatMap((s) => [s, s]));
    expect(rows.map(([compared, searched]) => [compared, searched])).toEqual(samples.map((s) => [comparedText(s), searchedText(s)]));
  });
});

describe(`a rank in SQL agrees with the rank of the marked text (${testProvider})`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  // Texts and queries from few characters, so queries often match: separators, GLOB's own characters, the marks, case, non-ASCII.
  const character = fc.constantFrom(..."aAb_./-: *?[]\u0001\u0002\u0003\u0004éÉ🎉".split(/(?:)/u), "x", "|", "~");
  const text = fc.array(character, { maxLength: 14 }).map((chars) => chars.join(""));
  const query = fc.array(character, { minLength: 1, maxLength: 4 }).map((chars) => chars.join("").trim()).filter((q) => q.length > 0);

  // SQLite checks the folded text without building the marked one (sqliteMatchesAtLeast); PostgreSQL the marked text it stores (postgresMatchesAtLeast).
  test("for any text and query, at every rank", async () => {
    // Half the queries are a piece of their text, so every rank is met often.
    const piece = fc.tuple(text, fc.nat(14), fc.integer({ min: 2, max: 5 })).map(([t, at, length]) => [t, [...t].slice(at % Math.max(1, [...t].length), (at % Math.max(1, [...t].length)) + length).join("").trim() || "a"] as [string, string]);
    // And a quarter the starts of its words, shuffled (WORDS): the words' starts, reversed, joined by a space.
    const shuffled = text.map((t) => [t, t.split(SEPARATOR_RUN).filter((w) => w.length > 0).map((w) => [...w].slice(0, 2).join("")).reverse().join(" ") || "a b"] as [string, string]);
    const cases = [...fc.sample(fc.tuple(text, query), 300), ...fc.sample(piece, 300), ...fc.sample(shuffled, 200)];
    cases.push(["x".repeat(1_990) + " ab", "ab"], ["x".repeat(1_999) + " ab", "ab"], ["🎉".repeat(1_999) + "ab", "ab"], ["A*b", "a*"], ["[a]", "[a"]);
    // Several words, in another order, behind other separators; one of them cut off at the searched length, or inside a word.
    cases.push(["raw/Customer_Orders.csv", "orders customer"], ["b_xa", "a b"], ["xa bc", "bc a"], ["b_xa", "xa bc"], ["ab:*x", "x*:ab"], ["x".repeat(1_995) + " ab cd", "ab cd"], ["éa-🎉b", "🎉b éa"]);
    const expected: boolean[] = [];
    const found: boolean[] = [];
    // Eighty texts a statement, a SELECT per rank (SQLite takes at most 500 SELECTs in one).
    for (let from = 0; from < cases.length; from += 80) {
      const params: unknown[] = [];
      const bind = (value: unknown) => {
        params.push(value);
        return testProvider === "sqlite" ? "?" : `$${params.length}`;
      };
      const selects: string[] = [];
      for (const [t, q] of cases.slice(from, from + 80)) {
        const phrases = queryPhrases(q);
        for (const rank of SEARCH_RANKS) {
          const condition = testProvider === "sqlite" ? sqliteMatchesAtLeast("x.t", phrases, rank, bind) : postgresMatchesAtLeast(postgresSearched("x.t"), phrases, rank, bind);
          selects.push(`SELECT ${condition} FROM (SELECT ${bind(t)}${testProvider === "sqlite" ? "" : "::text"} AS t) x`);
          expected.push(markedMatchesAtLeast(searchedText(t), phrases, rank));
        }
      }
      const { rows } = await db.database.readRows(selects.join(" UNION ALL "), params);
      found.push(...rows.map(([value]) => value === true || Number(value) === 1));
    }
    const ranks = SEARCH_RANKS.length;
    const labelled = (values: boolean[]) => values.map((value, i) => [cases[Math.floor(i / ranks)], SEARCH_RANKS[i % ranks], value]);
    expect(labelled(found)).toEqual(labelled(expected));
    // The cases reach WORDS beyond the phrase.
    expect(cases.filter(([t, q]) => !markedMatchesAtLeast(searchedText(t), queryPhrases(q), "SUBSTRING") && markedMatchesAtLeast(searchedText(t), queryPhrases(q), "WORDS")).length).toBeGreaterThan(5);
  });
});

describe(`a store that existed before the search index: its migration indexes it as recording would (${testProvider})`, () => {
  let migrated: TestDatabase;
  let recorded: TestDatabase;

  const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  const art = (n: number) => `art_${String(n).padStart(40, "0")}`;
  const op = (n: number) => `op_${String(n).padStart(40, "0")}`;
  // Plain artifacts with awkward names, two dataset versions (the newer describes a column differently), an operation, an OpenLineage job, a pipeline, a tag.
  const artifacts: [string, string, string, string | null, string | null, string][] = [
    [art(1), "csv", "Ünïcode_Data.CSV", null, null, at(1)],
    [art(2), "csv", "o'brien's 100%_done.csv", null, null, at(2)],
    [art(3), "parquet", "raw/customer orders/🎉 2026.parquet", null, null, at(3)],
    [art(4), "csv", "x".repeat(600), null, null, at(4)],
    [art(5), "dataset", "pg://db/shop.orders", "pg://db", "shop.orders", at(5)],
    [art(6), "dataset", "pg://db/shop.orders", "pg://db", "shop.orders", at(6)],
  ];
  const columns: [string, string, number, string | null][] = [
    [art(5), "order_id", 0, "The order's id"],
    [art(5), "email", 1, "Where receipts go"],
    [art(6), "order_id", 0, "The order's id"],
    [art(6), "email", 1, "Where the receipt is sent"],
  ];
  const operations: [string, string, string, string][] = [
    [op(1), "load_orders", "openlineage:airflow-prod", "CREATOR"],
    [op(2), "Clean Orders", "2", "CURATOR"],
  ];

  async function store(db: TestDatabase) {
    const run = (sql: string, params: unknown[]) => db.database.prisma.$executeRawUnsafe(sql.replace(/\?/g, () => (testProvider === "sqlite" ? "?" : `$${++n}`)), ...params);
    let n = 0;
    const withDates = (values: unknown[]) => values.map((v) => (typeof v === "string" && /^\d{4}-\d\d-\d\dT/.test(v) ? new Date(v) : v));
    for (const o of operations) {
      n = 0;
      await run(`INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES (?, ?, ?, ?, '{}', ?)`, withDates([...o, at(0)]));
    }
    for (const a of artifacts) {
      n = 0;
      await run(`INSERT INTO "Artifact" (id, "artifactType", "contentHash", "originalName", "datasetNamespace", "datasetName", "createdAt") VALUES (?, ?, ?, ?, ?, ?, ?)`, withDates([a[0], a[1], `sha256:${a[0]}`, a[2], a[3], a[4], a[5]]));
    }
    for (const c of columns) {
      n = 0;
      await run(`INSERT INTO "DatasetColumn" ("artifactId", field, position, description) VALUES (?, ?, ?, ?)`, c);
    }
    n = 0;
    await run(`INSERT INTO "PipelineStep" (pipeline, step, "operationId", "inputRoles", "outputRoles", "createdAt") VALUES (?, 1, ?, '[]', '[]', ?)`, withDates(["Nightly Orders", op(2), at(7)]));
    n = 0;
    await run(`INSERT INTO "PolicyTagAssignment" (tag, "nodeKind", "artifactId", field, source, "assignedBy", "createdAt") VALUES ('PII', 'COLUMN', ?, 'email', 'ADMIN', 'test', ?)`, withDates([art(6), at(8)]));
  }

  beforeAll(async () => {
    migrated = await createTestDatabase();
    recorded = await createTestDatabase();
    await store(migrated);
    await store(recorded);
    // What the migration does to a store holding these rows already: its statements from "What the store holds already" on.
    const dir = migrationsDirectory(testProvider);
    const file = path.join(dir, fs.readdirSync(dir).find((name) => name.endsWith("_search_index"))!, "migration.sql");
    const sql = fs.readFileSync(file, "utf8");
    await migrated.database.prisma.$executeRawUnsafe("SELECT 1");
    if (testProvider === "sqlite") {
      const BetterSqlite3 = (await import("better-sqlite3")).default;
      const handle = new BetterSqlite3(migrated.url.replace(/^file:/, ""));
      handle.exec(sql.slice(sql.indexOf("-- What the store holds already.")));
      handle.close();
    } else {
      const pg = (await import("pg")).default;
      const client = new pg.Client({ connectionString: migrated.url });
      await client.connect();
      await client.query(sql.slice(sql.indexOf("-- What the store holds already.")));
      await client.end();
    }
    // What recording them would have indexed, in recording order.
    await recorded.database.transaction(
      (tx) =>
        indexSearchableWrites(tx, recorded.database.provider, [
          ...operations.map(([id, name, version, kind]) => ({ kind: "OPERATION" as const, id, name, version, operationKind: kind })),
          ...artifacts.map(([id, type, name, namespace, dataset]) => ({ kind: "ARTIFACT" as const, id, originalName: name, artifactType: type, dataset: namespace ? { namespace, name: dataset! } : null })),
          ...columns.map(([artifactId, field, , description]) => ({ kind: "COLUMN" as const, artifactId, field, description })),
          { kind: "PIPELINE" as const, name: "Nightly Orders" },
          { kind: "POLICY_TAG" as const, tag: "PII" },
        ]),
      { maxWait: 10_000, timeout: 60_000 },
    );
  });
  afterAll(async () => {
    await migrated.drop();
    await recorded.drop();
  });

  test("the same entries", async () => {
    const entries = async (db: TestDatabase) =>
      (
        await db.database.prisma.$queryRawUnsafe<Record<string, unknown>[]>(
          `SELECT "kind", "key", "label", "labelFolded", "keywords", "keywordsFolded", "guarded", "guardArtifactId", "guardField", "namespace", "detail"${testProvider === "postgres" ? `, "labelMarked", "guardedMarked"` : ""} FROM "SearchEntry" ORDER BY "id"`,
        )
      ).map((row) => JSON.stringify(row));
    expect(await entries(migrated)).toEqual(await entries(recorded));
    expect(await entries(migrated)).toHaveLength(4 + 1 + 2 + 2 + 1 + 1);
  });

  test("the same hits", async () => {
    for (const query of ["Ünïcode", "ünïcode", "unicode", "DATA", "o'brien", "100%", "%_", "customer orders", "🎉", "x".repeat(200), "orders", "receipt", "order's", "clean", "nightly", "pii", "airflow", art(3).slice(0, 10)]) {
      const [a, b] = [await everything(migrated, query), await everything(recorded, query)];
      expect([query, a]).toEqual([query, b]);
    }
    expect(await everything(migrated, "receipt")).toEqual(["WORD COLUMN pg://db/shop.orders.email DESCRIPTION"]);
    // Case is ignored for A–Z only.
    expect(await everything(migrated, "Ünïcode_DATA")).toEqual([`PREFIX ARTIFACT Ünïcode_Data.CSV LABEL ${art(1)}`]);
    expect(await everything(migrated, "ünïcode")).toEqual([]);
  });
});
