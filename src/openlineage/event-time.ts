/**
 * OpenLineage eventTime: RFC 3339 date-time, as JSON Schema's "date-time" format reads it — plus what
 * real producers send beyond it: no zone at all (Python's `datetime.now().isoformat()`), read as UTC;
 * any number of fractional digits (Java's nanoseconds), kept in the raw event and read to the
 * millisecond. A leap second (:60) reads as the last millisecond of its minute. Also, as Marquez
 * accepts, milliseconds since the epoch: a JSON integer, or a string of one (docs/openlineage.md,
 * "Validation").
 */
const EVENT_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

export interface EventTime {
  date: Date;
  /** The text carried a zone (Z or an offset). */
  zoned: boolean;
}

/** The instant an eventTime names, or undefined when it is not a date-time (the schema check then says why). */
export function parseEventTime(text: string): EventTime | undefined {
  const match = EVENT_TIME.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  const millis = Number((fraction ?? "").slice(0, 3).padEnd(3, "0"));
  const seconds = Math.min(Number(second), 59);
  let time = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), seconds, Number(second) === 60 ? 999 : millis);
  if (zone && zone.toUpperCase() !== "Z") {
    const sign = zone[0] === "-" ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    time -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || "0")) * 60_000;
  }
  if (!Number.isFinite(time)) return undefined;
  return { date: new Date(time), zoned: zone !== undefined };
}

/** Epoch milliseconds: an integer, or a string of one (at most 15 digits: the years 1653 to 33658). */
const EPOCH_MILLIS = /^-?\d{1,15}$/;

/** The instant an eventTime value names (a date-time, or epoch milliseconds), or undefined. */
export function parseEventTimeValue(value: unknown): EventTime | undefined {
  const millis = epochMillisOf(value);
  if (millis !== undefined) return { date: new Date(millis), zoned: true };
  return typeof value === "string" ? parseEventTime(value) : undefined;
}

/** The epoch milliseconds an eventTime value is, when it is one (a safe integer, or a string of digits). */
export function epochMillisOf(value: unknown): number | undefined {
  const millis = typeof value === "number" ? value : typeof value === "string" && EPOCH_MILLIS.test(value) ? Number(value) : undefined;
  if (millis === undefined || !Number.isSafeInteger(millis) || Number.isNaN(new Date(millis).getTime())) return undefined;
  return millis;
}

/** The same text with a zone: "Z" appended when it has none (for the schema's date-time check). */
export function withZone(text: string): string {
  const parsed = EVENT_TIME.exec(text);
  return parsed && parsed[8] === undefined ? `${text}Z` : text;
}
