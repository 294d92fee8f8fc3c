/** GraphQL over SSE ("distinct connections" mode) as a client reads it: `next` events, then `complete`. */
export interface SseMessage {
  event: "next" | "complete";
  data: any;
}

/** Parses the messages in `text` (comment lines, the keep-alive pings, are skipped); returns them and the unparsed rest. */
export function parseSse(text: string): { messages: SseMessage[]; rest: string } {
  const messages: SseMessage[] = [];
  const blocks = text.split("\n\n");
  const rest = blocks.pop() ?? "";
  for (const block of blocks) {
    const lines = block.split("\n").filter((line) => line !== "" && !line.startsWith(":"));
    if (lines.length === 0) continue;
    const event = lines.find((line) => line.startsWith("event:"))?.slice("event:".length).trim() as SseMessage["event"];
    const data = lines
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice("data:".length).trim())
      .join("\n");
    messages.push({ event, data: data === "" ? null : JSON.parse(data) });
  }
  return { messages, rest };
}

/** Reads an SSE response body message by message. */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private readonly queue: SseMessage[] = [];
  /** Every chunk received, pings included. */
  raw = "";

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  /** The next `n` messages (a `complete` counts as one); fails after `timeoutMs`. */
  async take(n: number, timeoutMs = 10_000): Promise<SseMessage[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length < n) {
      const chunk = await this.read(deadline - Date.now());
      if (chunk === "timeout") throw new Error(`expected ${n} SSE messages, got ${this.queue.length}: ${JSON.stringify(this.queue).slice(0, 2000)}`);
      if (chunk === "end") throw new Error(`the stream ended after ${this.queue.length} of ${n} messages: ${JSON.stringify(this.queue).slice(0, 2000)}`);
    }
    return this.queue.splice(0, n);
  }

  /** Waits for the stream's first bytes (a keep-alive comment): the server has subscribed and pulls the first result. */
  async ready(timeoutMs = 5_000): Promise<this> {
    const deadline = Date.now() + timeoutMs;
    while (this.raw === "") {
      const chunk = await this.read(deadline - Date.now());
      if (chunk !== "more") throw new Error(`the stream sent nothing within ${timeoutMs} ms`);
    }
    return this;
  }

  /** Messages arriving within `ms`. */
  async idle(ms: number): Promise<SseMessage[]> {
    const deadline = Date.now() + ms;
    for (;;) {
      const chunk = await this.read(deadline - Date.now());
      if (chunk !== "more") return this.queue.splice(0);
    }
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }

  private pendingRead: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;

  private async read(ms: number): Promise<"more" | "timeout" | "end"> {
    this.pendingRead ??= this.reader.read();
    let timer: NodeJS.Timeout | undefined;
    const result = await Promise.race([this.pendingRead, new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), Math.max(0, ms))))]);
    clearTimeout(timer);
    if (result === "timeout") return "timeout";
    this.pendingRead = undefined;
    if (result.done) return "end";
    const text = this.decoder.decode(result.value, { stream: true });
    this.raw += text;
    const { messages, rest } = parseSse(this.buffer + text);
    this.buffer = rest;
    this.queue.push(...messages);
    return "more";
  }
}
