import { getOperationAST, Kind, type DocumentNode } from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";
import type { ProvgraphMetrics } from "./provgraph-metrics";

/** Root fields named in the operation label, at most; more are counted as "+N". */
const LABEL_FIELDS = 3;

/**
 * Counts each GraphQL request over HTTP and times it: from its arrival (onRequest) to its result
 * (onResultProcess), labelled by operation type, its root fields (never the client's operation
 * name, whose values are unbounded) and its outcome — OK, or the first error's code.
 */
export function useRequestMetrics(metrics: ProvgraphMetrics): Plugin {
  const started = new WeakMap<Request, number>();
  const labels = new WeakMap<Request, { type: string; operation: string }>();
  const label = (document: DocumentNode, operationName: string | null | undefined, context: unknown) => {
    const request = (context as { request?: Request }).request;
    if (request) labels.set(request, operationLabel(document, operationName));
  };
  return {
    onRequest({ request }) {
      started.set(request, performance.now());
    },
    onExecute({ args }) {
      label(args.document, args.operationName, args.contextValue);
    },
    onSubscribe({ args }) {
      label(args.document, args.operationName, args.contextValue);
    },
    onResultProcess({ request, result }) {
      const from = started.get(request);
      if (from === undefined) return;
      // a batch of results answers once; a subscription's stream is counted as it starts
      started.delete(request);
      const { type, operation } = labels.get(request) ?? { type: "none", operation: "none" };
      const first = isAsyncIterable(result) ? undefined : (Array.isArray(result) ? result : [result]).flatMap((single) => single.errors ?? [])[0];
      const outcome = first ? String((first as { extensions?: { code?: unknown } }).extensions?.code ?? "ERROR") : "OK";
      metrics.request(type, operation, outcome, (performance.now() - from) / 1000);
    },
  };
}

/** `query`, `lineage` / `mutation`, `recordExecution+registerOperation` (sorted, distinct, at most LABEL_FIELDS then +N). */
export function operationLabel(document: DocumentNode, operationName: string | null | undefined): { type: string; operation: string } {
  const operation = getOperationAST(document, operationName ?? undefined);
  if (!operation) return { type: "none", operation: "none" };
  const fields = [...new Set(operation.selectionSet.selections.flatMap((selection) => (selection.kind === Kind.FIELD ? [selection.name.value] : ["(fragment)"])))].sort();
  const named = fields.slice(0, LABEL_FIELDS).join("+") + (fields.length > LABEL_FIELDS ? `+${fields.length - LABEL_FIELDS}` : "");
  return { type: operation.operation, operation: named || "none" };
}
