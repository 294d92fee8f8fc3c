import { ApiClient, type LineageEventResult, type RemoteOptions } from "../api-client";
import { eventFilesOf, readEventFile, type SourcedEvent } from "../event-files";
import { ExitCode } from "../exit-codes";
import type { Output } from "../output";

export interface IngestOptions extends RemoteOptions {
  /** Events per request (the lineage route takes at most 10,000). */
  batchSize: number;
  /** Refusals listed in the summary; the rest are counted. */
  maxReasons: number;
  json: boolean;
  quiet: boolean;
}

/** A request stays well under the route's 50 MB body limit, whatever the events' sizes. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;

interface Refusal {
  where: string;
  code: string;
  pointer?: string;
  reason: string;
}

/**
 * `provgraph ingest <files…|directories…|->`: OpenLineage events (JSON objects, arrays or NDJSON) sent to the lineage
 * batch route in batches, with a progress bar, then a summary of what was stored, what was a duplicate
 * and what was refused with its reasons. Every file is read and parsed before anything is sent, so a
 * file that is not JSON sends nothing. Exit 0 when nothing was refused, 1 otherwise.
 */
export async function ingest(args: string[], options: IngestOptions, out: Output): Promise<number> {
  const client = new ApiClient(options);
  const files = await eventFilesOf(args);
  const events: SourcedEvent[] = [];
  for (const file of files) events.push(...(await readEventFile(file)));
  const totals = { stored: 0, duplicates: 0, refused: 0 };
  const refusals: Refusal[] = [];
  const progress = options.quiet || options.json ? undefined : out.progress(events.length, "events");
  try {
    for (const batch of batches(events, options.batchSize)) {
      const answer = await client.postLineageBatch(batch.map(({ event }) => event));
      answer.results.forEach((result: LineageEventResult, i) => {
        if (result.status === "STORED") totals.stored++;
        else if (result.status === "DUPLICATE") totals.duplicates++;
        else {
          totals.refused++;
          refusals.push({ where: batch[i].where, code: result.error?.code ?? "REFUSED", pointer: result.error?.pointer, reason: result.error?.reason ?? result.error?.message ?? "refused" });
        }
      });
      progress?.advance(batch.length);
    }
  } finally {
    progress?.stop();
  }
  if (options.json) {
    out.stdout(JSON.stringify({ events: events.length, files: files.length, ...totals, refusals }, null, 2));
  } else {
    out.stdout(`${events.length} event${events.length === 1 ? "" : "s"} from ${files.length} file${files.length === 1 ? "" : "s"}: ${totals.stored} stored, ${totals.duplicates} duplicate${totals.duplicates === 1 ? "" : "s"}, ${totals.refused} refused`);
    for (const refusal of refusals.slice(0, options.maxReasons)) {
      out.stdout(`  refused ${refusal.where}: ${refusal.code}${refusal.pointer !== undefined ? ` ${refusal.pointer || "/"}` : ""}: ${refusal.reason}`);
    }
    if (refusals.length > options.maxReasons) out.stdout(`  … and ${refusals.length - options.maxReasons} more refused (--max-reasons, or --json for all)`);
  }
  return totals.refused > 0 ? ExitCode.FINDINGS : ExitCode.OK;
}

/** Consecutive runs of at most `size` events and MAX_BATCH_BYTES of JSON each (an event larger than that goes alone). */
function* batches(events: readonly SourcedEvent[], size: number): Generator<SourcedEvent[]> {
  let batch: SourcedEvent[] = [];
  let bytes = 0;
  for (const event of events) {
    const length = JSON.stringify(event.event)?.length ?? 4;
    if (batch.length > 0 && (batch.length >= size || bytes + length > MAX_BATCH_BYTES)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(event);
    bytes += length + 1;
  }
  if (batch.length) yield batch;
}
