import { textInChunks } from "../../src/http/text-in-chunks";

/** A big text written in UTF-8 pieces (src/http/text-in-chunks.ts) is the same bytes as written whole. */
describe("textInChunks", () => {
  const bytesOf = async (stream: ReadableStream<Uint8Array>) => {
    const pieces: Uint8Array[] = [];
    for await (const piece of stream as unknown as AsyncIterable<Uint8Array>) pieces.push(piece);
    return { pieces: pieces.length, bytes: Buffer.concat(pieces) };
  };

  test.each([
    ["ASCII", "abcdefghij".repeat(10)],
    ["a surrogate pair across every boundary", "abc😀".repeat(30)],
    ["two-byte and three-byte characters", "é€x".repeat(40)],
  ])("%s: the same bytes, in pieces of about the size asked", async (_, text) => {
    const { pieces, bytes } = await bytesOf(textInChunks(text, ReadableStream, 7));
    expect(bytes.equals(Buffer.from(text, "utf8"))).toBe(true);
    expect(pieces).toBeGreaterThanOrEqual(Math.floor(text.length / 8));
  });
});
