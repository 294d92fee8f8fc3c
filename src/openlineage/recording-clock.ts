/**
 * Recording instants that never repeat in this process: each event gets one strictly later than the
 * previous (a millisecond later when the clock has not moved). What is recorded for an event takes
 * its instant, so "the newest version recorded" means the same whether events come one per request
 * or many per batch.
 */
let last = 0;

export function nextRecordingInstant(): Date {
  const now = Date.now();
  last = now > last ? now : last + 1;
  return new Date(last);
}
