import { searchedText } from "../../src/services/discovery/search-documents";
import { idRangeOf } from "../../src/services/discovery/search-kinds";
import { LANES, pgWindowLaneSql, substringFragments } from "../../src/services/discovery/search-lanes";
import { queryPhrases } from "../../src/services/discovery/search-phrases";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * PostgreSQL: a lane's first window counts the query's fragments in a sample of the kind, which
 * decides what the index looks up when the windows find too few (src/services/discovery/search-lanes.ts
 * pgWindowLaneSql). A store's names follow the time they were recorded in: the sample must come from
 * the whole kind, not from its newest entries, or a fragment only older names hold is taken for rare
 * and looked up alone (`orders 2024` read half a store of 1M artifacts: 1.4 s).
 */
describe("the fragments' sample spans the kind (postgres)", () => {
  let db: TestDatabase;
  const { low, high } = idRangeOf("ARTIFACT");
  const substringLane = LANES.findIndex((lane) => lane.source === "entry" && lane.field === "label" && lane.rank === "SUBSTRING");
  const phrases = queryPhrases("orders 2024");
  const fragments = substringFragments(phrases.phrase.SUBSTRING);

  beforeAll(async () => {
    db = await createTestDatabase();
    // 2,000 artifacts, ids handed out downwards: the 1,000 newest (lowest ids) named for 2025, the 1,000 before them for 2024.
    const names = Array.from({ length: 2_000 }, (_, i) => ({ id: high - 2_000 + i, name: `exports/orders/${i < 1_000 ? "2025" : "2024"}-01-${String(1 + (i % 28)).padStart(2, "0")}/part-${i}.csv` }));
    const values: unknown[] = [];
    const rows = names.map(({ id, name }) => {
      values.push(id, `key-${id}`, name, name.toLowerCase(), searchedText(name));
      const at = values.length - 5;
      return `($${at + 1}::bigint, 'ARTIFACT', $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, 'target')`;
    });
    await db.database.readRows(`INSERT INTO "SearchEntry" ("id", "kind", "key", "label", "labelFolded", "labelMarked", "target") VALUES ${rows.join(", ")}`, values);
  });
  afterAll(() => db.drop());

  async function countsOf(parts: { low: number; first: boolean }) {
    const statement = pgWindowLaneSql(phrases, substringLane, [{ place: 0, high, window: 1_000, ...parts }], 64, null, fragments);
    const { rows } = await db.database.readRows(statement.sql, statement.params);
    const marker = rows.find((r) => r[4] === null)!;
    return marker[3] === null ? null : (marker[3] as number[]).map(Number);
  }

  test("a kind's first window counts a sample of all its entries, old and new alike", async () => {
    expect(fragments).toEqual(["orders", "2024"]);
    const [sampled, orders, year] = (await countsOf({ low, first: true }))!;
    expect(sampled).toBe(256);
    expect(orders).toBe(256);
    // Half the sample from the 2024 half, give or take a run: none would be there were it the newest 256.
    expect(year).toBeGreaterThanOrEqual(112);
    expect(year).toBeLessThanOrEqual(144);
  });

  test("a kind of fewer entries than the sample counts each entry once", async () => {
    // From the 1,900th entry on: 100 left, all of them 2024's.
    expect(await countsOf({ low: high - 100, first: true })).toEqual([100, 100, 100]);
  });

  test("later windows count nothing more", async () => {
    expect(await countsOf({ low: low + 1_000, first: false })).toBeNull();
  });
});
