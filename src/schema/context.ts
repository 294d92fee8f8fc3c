import type { AuthContext } from "../auth/context";
import type { OpenLineage } from "../openlineage";
import type { Services } from "../services/services";

/** What every resolver receives: the core services, OpenLineage ingestion, who the request acts as, and the request id errors are logged under. */
export interface GraphQLContext extends AuthContext {
  services: Services;
  openLineage: OpenLineage;
  /**
   * The HTTP request's, aborted when its client goes away before the answer: what is left of its
   * work stops (heavy reads, a search's statements). None over graphql-ws.
   */
  signal?: AbortSignal;
}
