import { GraphQLError, type ExecutionResult } from "graphql";
import { isAsyncIterable, type Plugin } from "graphql-yoga";
import type { AuthContext } from "./context";
import { UnauthenticatedError } from "./errors";
import type { Principal } from "./principal";
import type { TokenLeaseEnd, TokenWatch } from "./token-watch";

/**
 * A subscription lives only as long as its token: revoked (here, through the CLI or on another
 * instance) or expired, the subscription's last result is UNAUTHENTICATED with `reason` REVOKED or
 * EXPIRED, and it ends — over graphql-ws and SSE alike (they share Yoga's envelope). Nothing more is
 * delivered once the token's end is known, not even an event already on its way.
 */
export function useSubscriptionLeases(watch: TokenWatch): Plugin {
  return {
    onSubscribe({ args }) {
      const principal = (args.contextValue as Partial<AuthContext> | undefined)?.principal;
      if (principal?.kind !== "token") return;
      return {
        onSubscribeResult({ result, setResult }) {
          if (isAsyncIterable(result)) setResult(endingWithToken(result as AsyncIterable<ExecutionResult>, watch, principal));
        },
      };
    },
  };
}

const ENDED = Symbol("the token's end");

/** `source`, ended with an UNAUTHENTICATED result when the principal's token is revoked or expires. */
function endingWithToken(source: AsyncIterable<ExecutionResult>, watch: TokenWatch, principal: Principal): AsyncIterableIterator<ExecutionResult> {
  const iterator = source[Symbol.asyncIterator]();
  let state: "open" | "ending" | "done" = "open";
  let reason: TokenLeaseEnd = "REVOKED";
  let signalEnd: () => void = () => undefined;
  const ended = new Promise<typeof ENDED>((resolve) => (signalEnd = () => resolve(ENDED)));
  const release = watch.watch(principal, (why) => {
    if (state !== "open") return;
    state = "ending";
    reason = why;
    signalEnd();
    // The feed stops now, whether or not the consumer is waiting for its next event.
    void iterator.return?.();
  });
  const close = async () => {
    if (state === "done") return;
    const wasOpen = state === "open";
    state = "done";
    release();
    if (wasOpen) await iterator.return?.();
  };
  return {
    async next(): Promise<IteratorResult<ExecutionResult>> {
      if (state === "open") {
        const next = await Promise.race([iterator.next(), ended]);
        if (next !== ENDED && state === "open") {
          if (next.done) await close();
          return next;
        }
      }
      if (state === "ending") {
        state = "done";
        release();
        return { value: { errors: [unauthenticated(reason)] }, done: false };
      }
      return { value: undefined, done: true };
    },
    async return(): Promise<IteratorResult<ExecutionResult>> {
      await close();
      return { value: undefined, done: true };
    },
    async throw(error: unknown): Promise<IteratorResult<ExecutionResult>> {
      await close();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** The subscription's last result: UNAUTHENTICATED, REVOKED or EXPIRED (no HTTP hints: the response began long ago). */
function unauthenticated(reason: TokenLeaseEnd): GraphQLError {
  const error = new UnauthenticatedError(reason);
  return new GraphQLError(error.message, { extensions: { code: error.code, reason } });
}
