/**
 * Where the server's CPU goes, phase by phase (the bench's CPU budget table, bench/cpu-budget-bench.ts).
 * Off unless PROVGRAPH_CPU_PHASES=1 is set when the process starts: then every mark reads
 * process.cpuUsage() (a getrusage call, about a microsecond) and charges the CPU used since the last
 * mark to the phase that was current. Off, `mark` is an empty function and production pays nothing.
 *
 * The model is one current phase at a time, which holds when one request is in flight (the bench
 * sends them one after another): CPU spent between two marks on something else (a timer, garbage
 * collection) is charged to the current phase, and time waiting for I/O costs no CPU at all.
 * SIGUSR2 prints the totals since the last report as one JSON line on stdout ({"cpuPhases": …}) and
 * starts them again.
 */
export type CpuPhase =
  /** From the request's first byte: the HTTP parser, routing, headers, the body read and JSON-parsed. */
  | "http"
  /** GraphQL parse (Yoga's parse cache answers repeated documents). */
  | "parse"
  /** GraphQL validation (cached like parse). */
  | "validate"
  /** Authentication, purpose, operation authorization, request limits, the context. */
  | "scope"
  /** graphql-js execution up to the core: variable coercion, the resolver's argument mapping. */
  | "coercion"
  /** The recording core: shape checks, operation lookup, matching, validation, hashing, staging (Prisma's client pipeline included). */
  | "core"
  /** Statements at the driver (better-sqlite3, node-postgres), BEGIN included. */
  | "sql"
  /** COMMIT. */
  | "commit"
  /** The feed log's append, inside the transaction. */
  | "feedLog"
  /** After COMMIT: committed events handed to the feeds (matching subscribers, publishing). */
  | "publish"
  /** The answer: payload resolvers, result serialisation, the response written. */
  | "response"
  /** Between requests. */
  | "idle";

export const CPU_PHASES: readonly CpuPhase[] = ["http", "parse", "validate", "scope", "coercion", "core", "sql", "commit", "feedLog", "publish", "response", "idle"];

export interface CpuPhaseTotals {
  /** CPU µs (user + system) per phase since the last report. */
  micros: Record<CpuPhase, number>;
  /** Marks made (how many times the phase was entered). */
  entries: Record<CpuPhase, number>;
}

export const cpuPhasesEnabled = process.env.PROVGRAPH_CPU_PHASES === "1";

const zero = () => Object.fromEntries(CPU_PHASES.map((phase) => [phase, 0])) as Record<CpuPhase, number>;
let totals: CpuPhaseTotals = { micros: zero(), entries: zero() };
let current: CpuPhase = "idle";
let last = 0;

function used(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

function enter(phase: CpuPhase): CpuPhase {
  const now = used();
  totals.micros[current] += now - last;
  last = now;
  const previous = current;
  current = phase;
  totals.entries[phase] += 1;
  return previous;
}

/** Enters `phase`; answers the phase it left (to go back to it: `markCpuPhase(previous)`). */
export const markCpuPhase: (phase: CpuPhase) => CpuPhase = cpuPhasesEnabled ? enter : () => "idle";

/**
 * Runs `work` in `phase`, then goes back to the phase it was called in. A promise's wait costs no
 * CPU; what runs while it waits is charged to `phase`.
 */
export function inCpuPhase<T>(phase: CpuPhase, work: () => T): T {
  if (!cpuPhasesEnabled) return work();
  const previous = enter(phase);
  let result: T;
  try {
    result = work();
  } catch (error) {
    enter(previous);
    throw error;
  }
  if (result instanceof Promise) {
    return result.finally(() => void enter(previous)) as T;
  }
  enter(previous);
  return result;
}

/**
 * A statement at the driver: "sql", except inside the feed log's append or the commit, which keep
 * their statements as their own.
 */
export function inSqlPhase<T>(work: () => T): T {
  if (!cpuPhasesEnabled || current === "feedLog" || current === "commit") return work();
  return inCpuPhase("sql", work);
}

/** The totals since the last report, and a fresh start. */
export function takeCpuPhaseTotals(): CpuPhaseTotals {
  if (cpuPhasesEnabled) {
    const now = used();
    totals.micros[current] += now - last;
    last = now;
  }
  const taken = totals;
  totals = { micros: zero(), entries: zero() };
  return taken;
}

if (cpuPhasesEnabled) {
  last = used();
  process.on("SIGUSR2", () => {
    process.stdout.write(`${JSON.stringify({ cpuPhases: takeCpuPhaseTotals() })}\n`);
  });
}
