/** A text longer than this (characters) is best written in pieces of this size. */
export const TEXT_CHUNK_CHARS = 256 * 1024;

/**
 * A text as a stream of UTF-8 pieces, each encoded when the socket takes more: a document of
 * megabytes (an evidence package) is not encoded, and its buffer first touched, in one turn of the
 * event loop. A piece never ends between the two halves of a surrogate pair.
 */
export function textInChunks(text: string, ReadableStreamClass: typeof ReadableStream = ReadableStream, chunkChars = TEXT_CHUNK_CHARS): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStreamClass<Uint8Array>({
    pull(controller) {
      let end = Math.min(text.length, at + chunkChars);
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += 1;
      controller.enqueue(Buffer.from(text.slice(at, end), "utf8"));
      at = end;
      if (at >= text.length) controller.close();
    },
  });
}
