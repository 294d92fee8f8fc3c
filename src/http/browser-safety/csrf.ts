import { useCSRFPrevention } from "@graphql-yoga/plugin-csrf-prevention";
import { GraphQLError } from "graphql";
import { createGraphQLError, type Plugin } from "graphql-yoga";

/** Headers that make a browser preflight a request, so a cross-site page cannot send it unasked. */
export const CSRF_HEADERS = ["x-graphql-yoga-csrf", "authorization"] as const;

/**
 * Yoga's CSRF prevention: a GraphQL request a browser could send cross-site without a CORS
 * preflight — a GET, or a POST as a form (`application/x-www-form-urlencoded`,
 * `multipart/form-data`) or `text/plain` — must carry `x-graphql-yoga-csrf` or `Authorization`.
 * JSON POSTs are preflighted by browsers and need neither. Refused: 403 CSRF_HEADER_REQUIRED.
 * (Yoga itself answers a mutation sent by GET with 405: GET never writes; and any other method 405.)
 */
export function useCsrfPrevention(): Plugin {
  const inner = useCSRFPrevention({ requestHeaders: [...CSRF_HEADERS] });
  return {
    onRequestParse(payload) {
      // Another method than GET and POST is no GraphQL request at all: Yoga answers it 405 (Allow: GET, POST),
      // which says what is wrong; the CSRF refusal would send the caller after a header instead.
      if (payload.request.method !== "GET" && payload.request.method !== "POST") return;
      try {
        return inner.onRequestParse!(payload);
      } catch (error) {
        if (!(error instanceof GraphQLError)) throw error;
        throw createGraphQLError(
          `this request could be sent by any web page: a GET, form or text/plain request must carry one of the headers ${CSRF_HEADERS.join(", ")} (or POST application/json)`,
          { extensions: { code: "CSRF_HEADER_REQUIRED", http: { status: 403 } } },
        );
      }
    },
  };
}
