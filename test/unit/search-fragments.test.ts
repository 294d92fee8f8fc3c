import { fragmentPattern, substringFragments } from "../../src/services/discovery/search-lanes";
import { queryPhrases } from "../../src/services/discovery/search-phrases";

/**
 * PostgreSQL's SUBSTRING lane looks a kind up by its rarer fragments when the windows it read first
 * found some fragment common there (src/services/discovery/search-lanes.ts fragmentPattern): the
 * choice, fragment by fragment. What the pattern matches is checked on PostgreSQL itself
 * (test/discovery/substring-fragments.pg.test.ts).
 */
describe("a SUBSTRING lane's fragments and the pattern of the rarer ones", () => {
  const fragmentsOf = (query: string) => substringFragments(queryPhrases(query).phrase.SUBSTRING);

  test("the runs of letters and digits of three or more, in order; none for a phrase of one", () => {
    expect(fragmentsOf("raw/customer_orders/2024-03-17/part-00042.csv")).toEqual(["raw", "customer", "orders", "2024", "part", "00042", "csv"]);
    expect(fragmentsOf("Email Address")).toEqual(["email", "address"]);
    expect(fragmentsOf("café-crème")).toEqual(["café", "crème"]);
    expect(fragmentsOf("ession")).toEqual([]);
    expect(fragmentsOf("a-b-cd")).toEqual([]);
    expect(fragmentsOf("ab/orders")).toEqual([]);
  });

  test("a rare fragment is looked up without the common ones", () => {
    expect(fragmentPattern(["part", "00042"], 256, [256, 0])).toBe("%00042%");
    expect(fragmentPattern(["raw", "customer", "2024", "part", "00042", "csv"], 256, [30, 16, 256, 256, 1, 256])).toBe("%00042%");
    // Two rare ones, in the phrase's order.
    expect(fragmentPattern(["x1x", "common", "y2y"], 256, [0, 250, 1])).toBe("%x1x%y2y%");
  });

  test("without a rare one: the rarest and every one not common", () => {
    expect(fragmentPattern(["aaa", "bbb", "ccc"], 256, [200, 30, 20])).toBe("%bbb%ccc%");
    expect(fragmentPattern(["aaa", "bbb"], 256, [256, 250])).toBe("%bbb%");
  });

  test("the whole phrase when every fragment would be kept, or nothing was counted", () => {
    expect(fragmentPattern(["email", "address"], 256, [25, 25])).toBeNull();
    expect(fragmentPattern(["part", "00042"], 256, [0, 0])).toBeNull();
    expect(fragmentPattern(["part", "00042"], 0, [0, 0])).toBeNull();
    expect(fragmentPattern([], 256, [])).toBeNull();
  });
});
