import { execute, getOperationAST } from "graphql";
import type { Plugin } from "graphql-yoga";

/**
 * Queries and mutations run on graphql-js's own executor. The one Yoga ships with
 * (@graphql-tools/executor 2.0.x, the last line that installs on Node 20) builds each object's
 * answer in the order its fields *finish*, so a fast field could come before a slow one asked first
 * (`search { totalCount edges }` answered `edges` first; a recording's `execution { outputs runId }`
 * answered `runId` first) — GraphQL's spec requires the order of the selection set (fixed upstream
 * in 2.1.0, which needs Node 22's helpers). Clients that compare answers as text, and our
 * documentation whose examples the tests run, rely on that order. Subscriptions keep Yoga's
 * executor, which streams them (graphql-js 16's `execute` does not). Compiled lineage queries
 * (./compiled-queries.ts) replace this per operation.
 */
export function useSpecExecutor(): Plugin {
  return {
    onExecute({ args, setExecuteFn }) {
      if (getOperationAST(args.document, args.operationName)?.operation === "subscription") return;
      setExecuteFn(execute);
    },
  };
}
