import { GraphQLError, type ASTNode } from "graphql";

/** The codes a request limit answers with (docs/errors.md). */
export type LimitCode =
  | "DOCUMENT_TOO_LARGE"
  | "TOO_MANY_TOKENS"
  | "QUERY_TOO_DEEP"
  | "TOO_MANY_ALIASES"
  | "QUERY_TOO_COSTLY"
  | "TOO_MANY_MUTATIONS"
  | "JSON_TOO_DEEP";

/**
 * A request refused by a limit before it runs: a request error (GraphQL over HTTP: 400 with
 * application/graphql-response+json, 200 with application/json), with the limit and what was found.
 */
export function limitError(code: LimitCode, message: string, details: { limit: number; found?: number }, nodes?: ASTNode | readonly ASTNode[]): GraphQLError {
  return new GraphQLError(message, { nodes, extensions: { code, ...details, http: { spec: true, status: 400 } } });
}

/** 12345 → "12,345": the numbers in messages read like the documentation's. */
export function formatCount(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "more than can be counted";
}
