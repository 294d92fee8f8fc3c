import type { EventEmitter } from "node:events";
import { GENERIC_PLAN_SQL } from "./prepared-statements";

/**
 * PostgreSQL's plan_cache_mode, per statement: a text marked GENERIC_PLAN_SQL runs under
 * force_generic_plan, every other statement with parameters under the session's own setting (auto
 * unless the role, database or URL set another). The setting belongs to a connection, so each
 * connection of a pool remembers which one it is in and changes it only when the next statement
 * wants the other: one `SET` before a request's first marked statement, one `RESET` before the
 * next statement of any other kind (a search flips twice, not once per lane). A statement without
 * parameters plans the same either way and changes nothing.
 *
 * The change runs on the statement's connection, and the statement once it is done. A ROLLBACK (or
 * DISCARD, RESET) may undo a SET made inside its transaction: after one the connection's mode is
 * unknown, and the next statement that cares sets it again. A server that refuses the setting
 * (before PostgreSQL 12) is never asked again on that connection; its statements keep PostgreSQL's
 * own choice, which answers the same.
 *
 * Read pools only (client.ts): the writer's connections, the recording path's, are left as they
 * come. Not through a pooler in transaction mode either: a setting would stay on whichever server
 * connection the pooler lent, for its next client (client.ts applies this only where statements are
 * prepared).
 */
export function followPlanModes(pool: EventEmitter): void {
  pool.on("connect", (client: PgClientLike) => followPlanModesOnConnection(client));
}

type PlanMode = "generic" | "session";

export interface PgClientLike {
  query: (...args: unknown[]) => unknown;
}

const SET_MODE: Record<PlanMode, string> = {
  generic: "SET plan_cache_mode = force_generic_plan",
  session: "RESET plan_cache_mode",
};

const UNDEFINED_SETTING = "42704";

/** Statements after which a SET made in a transaction may be undone. */
const UNDOES_SETTINGS = /^\s*(ROLLBACK|ABORT|DISCARD|RESET)\b/i;

/** The same on one connection (a node-postgres Client), from its first statement. */
export function followPlanModesOnConnection(client: PgClientLike): void {
  const query = client.query;
  // Unknown (null) after a ROLLBACK; "unsupported" once the server refused the setting.
  let mode: PlanMode | null | "unsupported" = "session";
  const settled = (error: { code?: string } | null | undefined) => {
    // 42704: no such setting; any other failure (a transaction already failed, a lost connection) leaves it unknown.
    if (error) mode = error.code === UNDEFINED_SETTING ? "unsupported" : null;
  };
  client.query = function followingPlanMode(...args: unknown[]) {
    const [config, values] = args;
    const text = typeof config === "string" ? config : (config as { text?: unknown } | null)?.text;
    // A submittable (a cursor) is handed back at once: it is left as it comes.
    if (typeof text !== "string" || mode === "unsupported" || typeof (config as { submit?: unknown }).submit === "function") return query.apply(client, args);
    const wanted: PlanMode | null = text.startsWith(GENERIC_PLAN_SQL) ? "generic" : hasParameters(config, values) ? "session" : null;
    if (UNDOES_SETTINGS.test(text)) mode = null;
    if (wanted === null || wanted === mode) return query.apply(client, args);
    mode = wanted;
    // The change runs first and the statement once it is done (node-postgres wants one query at a
    // time on a connection): called with a callback, as a pool calls it, or for a promise.
    const last = args[args.length - 1];
    if (typeof last === "function" || typeof (config as { callback?: unknown } | null)?.callback === "function") {
      query.call(client, SET_MODE[wanted], (error: { code?: string } | null) => {
        settled(error);
        query.apply(client, args);
      });
      return undefined;
    }
    return (query.call(client, SET_MODE[wanted]) as Promise<unknown>).then(
      () => query.apply(client, args),
      (error: { code?: string }) => {
        settled(error);
        return query.apply(client, args);
      },
    );
  };
}

function hasParameters(config: unknown, values: unknown): boolean {
  const bound = Array.isArray(values) ? values : (config as { values?: unknown } | null)?.values;
  return Array.isArray(bound) && bound.length > 0;
}
