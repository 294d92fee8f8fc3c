import { canonicalJson, canonicalJsonInTurns } from "../../src/services/canonical-json";

describe("canonical JSON", () => {
  test("keys sorted at every level; arrays kept in order; Dates as ISO strings; undefined left out as JSON.stringify does", () => {
    const value = { b: [{ z: 1, a: 2 }, null, undefined], a: { d: new Date("2026-03-11T02:14:07.318Z"), c: undefined, b: "x" } };
    expect(canonicalJson(value)).toBe('{"a":{"b":"x","d":"2026-03-11T02:14:07.318Z"},"b":[{"a":2,"z":1},null,null]}');
  });

  test('a "__proto__" key (as JSON.parse makes it) stays an own key, and the prototype is untouched', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"a":1}');
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"polluted":true},"a":1}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test("equal values give equal text whatever their key order", () => {
    expect(canonicalJson({ x: { q: 1, p: [3, { n: 1, m: 2 }] }, w: true })).toBe(canonicalJson({ w: true, x: { p: [3, { m: 2, n: 1 }], q: 1 } }));
  });
});

describe("canonical JSON in turns (big values)", () => {
  test("the same text as canonicalJson for any JSON value, with Dates, undefined, holes and __proto__ keys", async () => {
    const fc = await import("fast-check");
    const extra = fc.oneof(fc.constant(undefined), fc.constant(new Date("2026-03-11T02:14:07.318Z")));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small" }, fc.jsonValue({ maxDepth: 2 }), extra, fc.array(tie("node"), { maxLength: 5 }), fc.dictionary(fc.oneof(fc.string(), fc.constantFrom("__proto__", "10", "9", "a")), tie("node"), { maxKeys: 5 })),
    })).node;
    await fc.assert(
      fc.asyncProperty(value, async (v) => {
        expect(await canonicalJsonInTurns(v, () => undefined)).toBe(canonicalJson(v));
      }),
      { numRuns: 500 },
    );
    // eslint-disable-next-line no-sparse-arrays
    const withHoles = { ...JSON.parse('{"__proto__":{"polluted":true},"a":1}'), b: [1, , 3] };
    expect(await canonicalJsonInTurns(withHoles, () => undefined)).toBe('{"__proto__":{"polluted":true},"a":1,"b":[1,null,3]}');
  });

  test("a big value takes turns: the caller's turn is asked for between slices, and the text is still whole", async () => {
    const fields = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`c_${i}`, { inputFields: [{ namespace: "n", name: "in", field: "id" }] }]));
    let turns = 0;
    const text = await canonicalJsonInTurns({ fields }, () => {
      turns += 1;
      return new Promise((resolve) => setImmediate(resolve));
    });
    expect(turns).toBeGreaterThan(10);
    expect(text).toBe(canonicalJson({ fields }));
  });
});
