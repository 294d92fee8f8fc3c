import { queryPhrases } from "../../src/services/discovery/search-phrases";
import { WORD_MARK } from "../../src/services/discovery/search-text";

/**
 * PostgreSQL's word index query (src/services/discovery/search-phrases.ts wordQuery): which terms a
 * WORD lane looks up. A short last word's prefix is kept where it is what narrows the candidates.
 */
const m = (text: string) => text.replace(/\|/g, WORD_MARK);

describe("the word index query of a WORD lane", () => {
  test("a pair ending in a short word is looked up beside one other pair (a date: its day)", () => {
    expect(queryPhrases("2024-03-17").lexemes()).toBe(m("'2024-|03' & '03-|17':*"));
    expect(queryPhrases("fraud_scores_1").lexemes()).toBe(m("'fraud_|scores' & 'scores_|1':*"));
  });

  test("it is left out beside two other pairs, which narrow enough without it", () => {
    expect(queryPhrases("2024-03-17/part-0").lexemes()).toBe(m("'2024-|03' & '03-|17' & '17/|part'"));
  });

  test("a short word alone (its pair split by a long separator) is left out beside one other term", () => {
    expect(queryPhrases(`ledger${"-".repeat(40)}a`).lexemes()).toBe("'ledger'");
  });

  test("a last word is a prefix when it is the only term, and no prefix when a separator ends the query", () => {
    expect(queryPhrases("orders").lexemes()).toBe("'orders':*");
    expect(queryPhrases("part-0").lexemes()).toBe(m("'part-|0':*"));
    expect(queryPhrases("2024-03-17/part-0/").lexemes()).toBe(m("'2024-|03' & '03-|17' & '17/|part' & 'part-|0'"));
  });
});
