import { createContextCache } from "@pothos/core";
import { type HeavyReadArgs, type HeavyReadName, type HeavyReadResult, RequestBudget } from "../services/heavy-reads";
import type { GraphQLContext } from "./context";

interface RequestReads {
  budget: RequestBudget;
  /** Heavy reads asked for twice in one request (aliases) with the same arguments, answered once. */
  shared: Map<string, Promise<unknown>>;
}

const requestReads = createContextCache((ctx: GraphQLContext): RequestReads => ({ budget: new RequestBudget(ctx.services.heavyReads.options.budgetMs, ctx.signal), shared: new Map() }));

/**
 * Runs a heavy read off the event loop (services.heavyReads) within the request's time budget:
 * the request's heavy reads share one deadline, QUERY_BUDGET_MS after the first of them starts,
 * and stop when its client goes away (REQUEST_ABORTED).
 * `shared`: the same read with the same arguments again in this request (three aliases of one
 * evidencePackage) is answered by the first one's run; arguments are compared as JSON, so only
 * for small ones.
 */
export function heavyRead<N extends HeavyReadName>(ctx: GraphQLContext, name: N, args: HeavyReadArgs<N>, options: { shared?: boolean } = {}): Promise<HeavyReadResult<N>> {
  const reads = requestReads(ctx);
  const run = () => ctx.services.heavyReads.run(name, args, reads.budget);
  if (!options.shared) return run();
  const key = `${name}\u0000${JSON.stringify(args)}`;
  let answer = reads.shared.get(key);
  if (!answer) reads.shared.set(key, (answer = run()));
  return answer as Promise<HeavyReadResult<N>>;
}
