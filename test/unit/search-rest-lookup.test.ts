import type { RawRows } from "../../src/db/direct-statements";
import { type LaneRest, laneRestRows } from "../../src/services/discovery/search";
import { LANES, REST_COUNT_CAP } from "../../src/services/discovery/search-lanes";
import { ftsPhrase, queryPhrases } from "../../src/services/discovery/search-phrases";
import { WORD_MARK } from "../../src/services/discovery/search-text";

/**
 * A WORD lane's rest on SQLite chooses its candidates again by how many texts of the rest hold each
 * trigram (search.ts restLookup), where the lane's lookup, chosen by probes of the newest texts,
 * finds many. Read through a reader that answers the count statements with the figures of the
 * benchmark's store for `les/202` and records the rest's statement.
 */
const WORD_LABEL = LANES.findIndex((lane) => lane.source === "entry" && lane.field === "label" && lane.rank === "WORD");
const M = WORD_MARK;
/** What the probes chose: three trigrams of `es/2`, held together by every `…files/2024-…` name. */
const PROBED = [`es/`, `/${M}2`, `s/${M}`].map(ftsPhrase).join(" AND ");

function rest(read: LaneRest["read"]): LaneRest {
  return { query: "les/202", index: WORD_LABEL, range: { low: 1_000, high: 2_000_000 }, after: 5_000, limit: 21, lookup: PROBED, read };
}

/** A reader: count statements answered from `held` (by FTS5 query; absent: the cap they ask), the rest's statement recorded. */
function reader(held: Record<string, number>) {
  const counted: string[][] = [];
  const rests: { lookup: unknown }[] = [];
  return {
    counted,
    rests,
    provider: "sqlite" as const,
    readRows: async (sql: string, params: readonly unknown[]): Promise<RawRows> => {
      if (sql.includes(`count(*) AS "n"`)) {
        const queries = params.filter((_, i) => i % 3 === 0) as string[];
        counted.push(queries);
        const caps = [...sql.matchAll(/LIMIT (\d+)\)/g)].map((m) => Number(m[1]));
        return { columnNames: ["i", "n"], rows: queries.map((query, i) => [i, Math.min(held[query] ?? caps[i], caps[i])]) };
      }
      rests.push({ lookup: params[0] });
      return { columnNames: [], rows: [] };
    },
  };
}

const STORE = { [PROBED]: REST_COUNT_CAP, [ftsPhrase(`${M}le`)]: 59_890, [ftsPhrase("les")]: 59_865 };

describe("a WORD lane's rest on SQLite", () => {
  test("looked up again by the trigrams fewest texts of the rest hold, where the lane's own lookup finds many", async () => {
    const r = reader(STORE);
    await laneRestRows(r, rest({ candidates: 4_096, entries: 0 }));
    expect(r.counted[0]).toEqual([PROBED]);
    // Every trigram of the phrase at a word's start, `le` at a word's start among them.
    expect(r.counted[1]).toContain(ftsPhrase(`${M}le`));
    expect(r.counted[1]).toHaveLength(7);
    expect(r.rests).toHaveLength(1);
    const terms = String(r.rests[0].lookup).split(" AND ");
    expect(terms).toHaveLength(3);
    expect(terms).toEqual(expect.arrayContaining([ftsPhrase("les"), ftsPhrase(`${M}le`)]));
  });

  test("no rest statement where a trigram is in no text of the rest", async () => {
    const r = reader({ ...STORE, [ftsPhrase("202")]: 0 });
    expect(await laneRestRows(r, rest({ candidates: 4_096, entries: 0 }))).toEqual([]);
    expect(r.rests).toHaveLength(0);
  });

  test("its own lookup where that finds few candidates, or no trigram is held by fewer texts", async () => {
    const few = reader({ ...STORE, [PROBED]: 7_000 });
    await laneRestRows(few, rest({ candidates: 4_096, entries: 0 }));
    expect(few.counted).toEqual([[PROBED]]);
    expect(few.rests).toEqual([{ lookup: PROBED }]);

    const common = reader({ [PROBED]: REST_COUNT_CAP });
    await laneRestRows(common, rest({ candidates: 4_096, entries: 0 }));
    expect(common.counted).toHaveLength(2);
    expect(common.rests).toEqual([{ lookup: PROBED }]);
  });

  test("nothing counted where the lane's lookup holds every trigram of the phrase, or the phrase has many", async () => {
    const art = reader({});
    const byBoth = [`${M}ar`, "art"].map(ftsPhrase).join(" AND ");
    await laneRestRows(art, { ...rest({ candidates: 4_096, entries: 0 }), query: "art", lookup: byBoth });
    expect(art.counted).toHaveLength(0);
    expect(art.rests).toEqual([{ lookup: byBoth }]);

    const long = reader({});
    await laneRestRows(long, { ...rest({ candidates: 4_096, entries: 0 }), query: "models/support_tickets/2024-11-15" });
    expect(long.counted).toHaveLength(0);
    expect(long.rests).toEqual([{ lookup: PROBED }]);
  });

  test("nothing counted where the lane's entries were dense among the candidates read (the rest ends at its limit soon)", async () => {
    const r = reader(STORE);
    await laneRestRows(r, rest({ candidates: 4_096, entries: 10 }));
    expect(r.counted).toHaveLength(0);
    expect(r.rests).toEqual([{ lookup: PROBED }]);
  });

  test("a phrase as the lane reads it: `les/202` marked where its words start", () => {
    expect(queryPhrases("les/202").phrase.WORD).toBe(`${M}les/${M}202`);
  });
});
