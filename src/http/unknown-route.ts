import type { Plugin } from "graphql-yoga";
import { LINEAGE_PATH } from "../openlineage/route";
import { EXPLORER_PATH } from "./explorer-route";

/** Where GraphQL is served (HTTP and graphql-ws alike). */
export const GRAPHQL_PATH = "/graphql";

/** Whether a path is the GraphQL endpoint's: /graphql, or /graphql/ (which Yoga serves alike). */
export function isGraphQLPath(pathname: string): boolean {
  return pathname === GRAPHQL_PATH || pathname === `${GRAPHQL_PATH}/`;
}

/**
 * Any path no route serves: 404 NOT_FOUND as the other routes' JSON errors are written, naming the
 * path and where the API is, instead of Yoga's empty 404. Also the GraphQL endpoint's one door:
 * Yoga serves GraphQL at any path that *ends* in /graphql (`/x/graphql`), which would make every
 * such path an alias of the API; only /graphql (and /graphql/) are. Placed after every route and
 * after authentication, so a caller without a token learns nothing about paths.
 */
export function useUnknownRoutes(): Plugin {
  return {
    onRequest({ url, request, endResponse, fetchAPI }) {
      if (isGraphQLPath(url.pathname)) return;
      const shown = url.pathname.length > 200 ? `${url.pathname.slice(0, 200)}…` : url.pathname;
      endResponse(
        fetchAPI.Response.json(
          {
            error: {
              code: "NOT_FOUND",
              message: `nothing is served at ${request.method} ${shown}: the GraphQL API is at ${GRAPHQL_PATH}, the Explorer at ${EXPLORER_PATH}/, OpenLineage events go to POST ${LINEAGE_PATH} (docs/api.md lists the routes)`,
              field: "path",
            },
          },
          { status: 404 },
        ),
      );
    },
  };
}
