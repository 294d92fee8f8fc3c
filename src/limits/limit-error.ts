import { GraphQLError, type ASTNode } from "graphql";

/** The codes a request limit answers with (docs/errors.md). */
export type LimitCode =
  | "DOCUMENT_TOO_LARGE"
  | "TOO_MANY_TOKENS"
  | "TOO_MANY_OPERATIONS"
  | "TOO_MANY_FRAGMENTS"
  | "QUERY_TOO_DEEP"
  | "TOO_MANY_ALIASES"
  | "QUERY_TOO_COSTLY"
  | "TOO_MANY_MUTATIONS"
  | "TOO_MANY_SUBSCRIPTIONS"
  | "JSON_TOO_DEEP"
  | "PAYLOAD_TOO_LARGE";

/**
 * A request refused by a limit before it runs: a request error (GraphQL over HTTP: 400 with
 * application/graphql-response+json, 200 with application/json), with the limit and what was found.
 */
export function limitError(code: LimitCode, message: string, details: { limit: number; found?: number; [detail: string]: unknown }, nodes?: ASTNode | readonly ASTNode[]): GraphQLError {
  // A body over its size limit is 413 whatever the Accept header; the others 400 (GraphQL over HTTP).
  const http = code === "PAYLOAD_TOO_LARGE" ? { status: 413 } : { spec: true, status: 400 };
  return new GraphQLError(message, { nodes, extensions: { code, ...details, http } });
}

/** 12345 → "12,345": the numbers in messages read like the documentation's. */
export function formatCount(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "more than can be counted";
}
