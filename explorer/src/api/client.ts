/**
 * The Explorer's one door to provgraph: typed GraphQL over HTTP (POST application/json to the same
 * origin's /graphql) and subscriptions over graphql-ws on the same origin. Every document comes from
 * generated.ts, so what a call returns is typed by the server's schema.
 */
import { type Client, createClient } from "graphql-ws";
import { ApiError, apiErrorOf } from "./api-error";
import type { TypedDocumentString } from "./generated";
import { currentToken, onTokenChange } from "./token";

export const GRAPHQL_PATH = "/graphql";

export async function request<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, variables: TVariables, signal?: AbortSignal): Promise<TResult> {
  const token = currentToken();
  let response: Response;
  try {
    response = await fetch(GRAPHQL_PATH, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/graphql-response+json, application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query: document.toString(), variables }),
      signal,
    });
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new ApiError(`cannot reach ${GRAPHQL_PATH}: ${(error as Error).message}`, "NETWORK");
  }
  let body: { data?: TResult | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };
  try {
    body = await response.json();
  } catch {
    throw new ApiError(`the server answered HTTP ${response.status} without a GraphQL response`, response.status === 401 ? "UNAUTHENTICATED" : "NETWORK");
  }
  if (body.errors?.length) throw apiErrorOf(body.errors, response.status);
  if (!body.data) throw new ApiError(`the server answered HTTP ${response.status} with no data`, "INTERNAL_SERVER_ERROR");
  return body.data;
}

let socket: Client | undefined;

function socketClient(): Client {
  if (!socket) {
    const url = new URL(GRAPHQL_PATH, window.location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    socket = createClient({
      url: url.href,
      lazy: true,
      retryAttempts: Infinity,
      shouldRetry: () => true,
      connectionParams: () => {
        const token = currentToken();
        return token ? { authorization: `Bearer ${token}` } : {};
      },
    });
  }
  return socket;
}

// A new token means new rights: reconnect with it.
onTokenChange(() => {
  const old = socket;
  socket = undefined;
  void old?.dispose();
});

export interface SubscriptionHandlers<TResult> {
  next(data: TResult): void;
  error(error: ApiError): void;
  /** The socket is (re)connected. */
  connected?(): void;
}

/** Subscribes; returns the unsubscribe function. */
export function subscribe<TResult, TVariables>(document: TypedDocumentString<TResult, TVariables>, variables: TVariables, handlers: SubscriptionHandlers<TResult>): () => void {
  const client = socketClient();
  const offConnected = client.on("connected", () => handlers.connected?.());
  const unsubscribe = client.subscribe<TResult>(
    { query: document.toString(), variables: variables as Record<string, unknown> },
    {
      next: (result) => {
        if (result.errors?.length) handlers.error(apiErrorOf(result.errors as { message: string; extensions?: Record<string, unknown> }[], 200));
        else if (result.data) handlers.next(result.data);
      },
      error: (error) => {
        const errors = Array.isArray(error) ? error : undefined;
        handlers.error(errors ? apiErrorOf(errors, 200) : new ApiError(error instanceof Error ? error.message : "the live connection closed", "NETWORK"));
      },
      complete: () => undefined,
    },
  );
  return () => {
    offConnected();
    unsubscribe();
  };
}

export * from "./generated";
export { ApiError, asApiError } from "./api-error";
