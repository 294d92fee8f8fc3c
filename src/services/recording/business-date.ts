import { InvalidArgumentError } from "../errors";
import type { OperationRecord } from "../records";

/** A business date as stored: the calendar date a run computed for, YYYY-MM-DD. */
const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/;

/**
 * The business date of a run (docs: "Evidence packages", business date): the date its figures are
 * "as of", as opposed to when it was recorded. Read from the parameter its operation declares as its
 * business date (`businessDateParam`: a date, or a date-time whose date part is taken as written),
 * else from OpenLineage's nominalTime run facet (its nominalStartTime's date, as written). Null when
 * neither says. A declared parameter that is present but no date is refused, naming it.
 */
export function businessDateOf(operation: Pick<OperationRecord, "businessDateParam">, params: unknown): string | null {
  const record = typeof params === "object" && params !== null && !Array.isArray(params) ? (params as Record<string, unknown>) : null;
  if (operation.businessDateParam != null) {
    const value = record?.[operation.businessDateParam];
    if (value === undefined || value === null) return null;
    const date = dateOf(value);
    if (date === null) throw new InvalidArgumentError(`params.${operation.businessDateParam}`, `is the operation's business date: must be a date (YYYY-MM-DD) or a date-time, got ${JSON.stringify(value).slice(0, 80)}`);
    return date;
  }
  const nominal = record?.nominalTime;
  if (typeof nominal === "object" && nominal !== null) return dateOf((nominal as Record<string, unknown>).nominalStartTime);
  return null;
}

/** The date part of a date or date-time string, when it is a real calendar date. */
export function dateOf(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const match = DATE.exec(value);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return `${match[1]}-${match[2]}-${match[3]}`;
}
