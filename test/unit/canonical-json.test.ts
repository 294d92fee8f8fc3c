import { canonicalJson } from "../../src/services/canonical-json";

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
