import { createSourceEventStream, type DocumentNode, type ExecutionArgs, type ExecutionResult, execute } from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";
import { shareEncoding } from "./shared-frames";

/**
 * Subscribers that run the same document with the same variables, as the same viewer, get the
 * same result for the same event: it is executed once, not once per subscriber (a dashboard open
 * in 1,000 browsers costs one execution per run, plus 1,000 socket writes). The feeds hand every
 * such subscriber the same event object (services/feeds FeedMatcher), which keys the sharing; the
 * results are dropped with the event, and each is encoded once for all its subscribers
 * (./shared-frames.ts). Everything else about a subscription (its own feed, since,
 * queue, errors) stays its own.
 *
 * `viewerOf`: what, in a subscriber's context, may change what it is allowed to see. Results are
 * shared only between equal keys: when access control adds scopes or clearances, they go here.
 */
export function useSharedSubscriptionResults(viewerOf: (context: unknown) => string): Plugin {
  const documentIds = new WeakMap<DocumentNode, number>();
  let lastDocumentId = 0;
  const results = new WeakMap<object, Map<string, ExecutionResult | Promise<ExecutionResult>>>();
  return {
    onSubscribe({ setSubscribeFn }) {
      setSubscribeFn(async (args: ExecutionArgs) => {
        const source = await createSourceEventStream(args);
        if (!isAsyncIterable(source)) return source;
        let documentId = documentIds.get(args.document);
        if (documentId === undefined) documentIds.set(args.document, (documentId = ++lastDocumentId));
        const key = [documentId, args.operationName ?? "", JSON.stringify(args.variableValues ?? {}), viewerOf(args.contextValue)].join("\u0000");
        return mapAsyncIterable(source, (event) => {
          if (typeof event !== "object" || event === null) return execute({ ...args, rootValue: event });
          let byKey = results.get(event);
          if (!byKey) results.set(event, (byKey = new Map()));
          let result = byKey.get(key);
          if (!result) byKey.set(key, (result = sharedResult(execute({ ...args, rootValue: event }))));
          return result;
        });
      });
    },
  };
}

function sharedResult(result: ExecutionResult | Promise<ExecutionResult>): ExecutionResult | Promise<ExecutionResult> {
  return result instanceof Promise ? result.then(shareEncoding) : shareEncoding(result);
}

/** `source` with each value mapped; returning it returns the source (the feed subscription ends). */
function mapAsyncIterable<T, U>(source: AsyncIterable<T>, map: (value: T) => U | Promise<U>): AsyncIterableIterator<U> {
  const iterator = source[Symbol.asyncIterator]();
  return {
    async next() {
      const next = await iterator.next();
      return next.done ? { value: undefined, done: true } : { value: await map(next.value), done: false };
    },
    async return() {
      await iterator.return?.();
      return { value: undefined, done: true };
    },
    async throw(error: unknown) {
      await iterator.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
