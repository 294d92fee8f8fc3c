import fc from "fast-check";
import { GraphQLError } from "graphql";
import { JSON_PIECE_CHARS, jsonBytes, STRING_ANSWER_CHARS } from "../../src/http/answer-bytes";

/** FC_SEED=<n> replays a run fast-check reported. */
const SEED = process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {};

/**
 * GraphQL answers serialised piece by piece (src/http/answer-bytes.ts) are the bytes JSON.stringify's
 * text encodes to, whatever the answer holds: any JSON value, members JSON leaves out, toJSON (given
 * its key), objects without a prototype (graphql-js's), errors, and answers much longer than a piece.
 */
describe("answer bytes", () => {
  /** The answer's bytes, whichever form it took. */
  const bytesOf = (value: object) => {
    const body = jsonBytes(value);
    return typeof body === "string" ? Buffer.from(body, "utf8") : body;
  };
  const same = (value: object) => expect(bytesOf(value).toString("utf8")).toBe(JSON.stringify(value));

  test("any JSON value, in an answer's envelope, gives JSON.stringify's bytes", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue({ maxDepth: 3 }), (data, extensions) => {
        const bytes = bytesOf({ data, extensions });
        expect(bytes.equals(Buffer.from(JSON.stringify({ data, extensions }), "utf8"))).toBe(true);
      }),
      { numRuns: 500, ...SEED },
    );
  });

  test("members and items JSON leaves out or changes: undefined, functions, symbols, toJSON with its key, Dates, non-finite numbers", () => {
    const keys: string[] = [];
    const keyed = { toJSON: (key: string) => (keys.push(key), `as ${key}`) };
    const value = {
      a: undefined,
      b: () => 1,
      c: Symbol("s"),
      d: [undefined, () => 1, Symbol("t"), keyed, new Date(0), NaN, Infinity, -0],
      e: keyed,
      f: { toJSON: () => undefined },
      g: new Date(86_400_000),
      h: Object.assign(Object.create(null), { x: 1, y: [null, { z: "é\u{1F600}\ud800" }] }),
      i: new Map([["k", 1]]),
      "\u2028key\"": "line\u2029",
      7: "an index-like key comes first",
    };
    same(value);
    expect(keys).toEqual(["3", "e", "3", "e"]);
  });

  test("graphql-js's shapes: data without prototypes, errors that serialise themselves", () => {
    const data = Object.create(null);
    data.lineageGraph = Object.assign(Object.create(null), { nodes: [Object.assign(Object.create(null), { id: "art_1", x: 0.5 })], truncated: false });
    same({ data, errors: [new GraphQLError("boom", { extensions: { code: "NOT_FOUND", field: "roots" } })] });
  });

  test("an answer many pieces long: the same bytes", () => {
    const nodes = Array.from({ length: 5_000 }, (_, i) => ({ id: `art_${String(i).padStart(40, "0")}`, label: `näme ${i} \u{1F600}`, depth: i % 7, counts: [i, i + 1] }));
    const answer = { data: { lineageGraph: { truncated: false, nodes, edges: nodes.map((n, i) => ({ source: n.id, target: nodes[(i + 1) % nodes.length].id })) } } };
    expect(JSON.stringify(answer).length).toBeGreaterThan(20 * JSON_PIECE_CHARS);
    expect(Buffer.isBuffer(jsonBytes(answer))).toBe(true);
    same(answer);
  });

  test("a small answer stays one string; a large one with large items comes in pieces, the same", () => {
    const small = { data: { search: { edges: Array.from({ length: 20 }, (_, i) => ({ cursor: `c${i}`, node: { id: `art_${i}` } })) } } };
    expect(typeof jsonBytes(small)).toBe("string");
    same(small);
    const wide = { data: { items: Array.from({ length: 40 }, (_, i) => ({ i, text: "x".repeat(3 * JSON_PIECE_CHARS) })) } };
    expect(JSON.stringify(wide).length).toBeGreaterThan(STRING_ANSWER_CHARS);
    expect(Buffer.isBuffer(jsonBytes(wide))).toBe(true);
    same(wide);
  });

  test("nesting deeper than the walk goes is stringified whole, the same", () => {
    let deep: unknown = { leaf: [1, { two: 2 }] };
    for (let i = 0; i < 100; i++) deep = { next: deep, list: [i] };
    same({ data: deep });
  });
});
