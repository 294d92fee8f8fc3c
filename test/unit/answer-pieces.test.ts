import { MessageChannel, receiveMessageOnPort } from "node:worker_threads";
import { answerPieces, joinedAnswer, LONG_LIST_ITEMS, SLICE_ITEMS } from "../../src/services/heavy-reads/answer-pieces";

/**
 * A heavy read's answer with long lists crosses from its thread in pieces (src/services/heavy-reads/
 * answer-pieces.ts): put back together, it is the answer the read gave, whatever the lists hold.
 */
describe("answer pieces", () => {
  const node = (i: number) => ({ id: `art_${i}`, kind: i % 3 === 0 ? "RUN" : "ARTIFACT", depth: i % 7, label: i % 5 === 0 ? null : `name ${i} é`, at: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 60)), counts: { up: i, down: -i }, tags: i % 2 ? [] : ["PII"] });

  test("an answer without a long list is sent as it is", () => {
    expect(answerPieces({ nodes: Array.from({ length: LONG_LIST_ITEMS }, (_, i) => node(i)), edges: [] })).toBeUndefined();
    expect(answerPieces(null)).toBeUndefined();
    expect(answerPieces("text".repeat(100_000))).toBeUndefined();
    expect(answerPieces([1, 2, 3])).toBeUndefined();
  });

  test.each([
    ["a long list at the top", (n: number) => Array.from({ length: n }, (_, i) => node(i))],
    ["long lists in the record, beside other members", (n: number) => ({ roots: ["art_1"], nodes: Array.from({ length: n }, (_, i) => node(i)), edges: Array.from({ length: n + 7 }, (_, i) => ({ source: `art_${i}`, target: `run_${i}` })), truncated: false, width: null })],
    ["a long list two objects down, and a list of ids", (n: number) => ({ page: { inner: { items: Array.from({ length: n }, (_, i) => node(i)) }, total: n }, ids: Array.from({ length: n }, (_, i) => `art_${i}`) })],
  ])("%s: joined, the same answer (%#)", async (_name, make) => {
    for (const n of [LONG_LIST_ITEMS + 1, LONG_LIST_ITEMS + SLICE_ITEMS, 10_007]) {
      const answer = make(n);
      const pieces = answerPieces(answer)!;
      expect(pieces).toBeDefined();
      // Every slice's bytes are an ArrayBuffer of their own, which can be moved to another thread.
      expect(pieces.buffers.every((b) => b instanceof ArrayBuffer && b.byteLength > 0)).toBe(true);
      const { port1, port2 } = new MessageChannel();
      port1.postMessage(pieces, pieces.buffers);
      const received = receiveMessageOnPort(port2)!.message;
      port1.close();
      expect(pieces.buffers.every((b) => b.byteLength === 0)).toBe(true); // moved, not copied
      expect(await joinedAnswer(received)).toEqual(answer);
    }
  });
});
