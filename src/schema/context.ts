import type { AuthContext } from "../auth/context";
import type { OpenLineage } from "../openlineage";
import type { Services } from "../services/services";

/** What every resolver receives: the core services, OpenLineage ingestion, who the request acts as, and the request id errors are logged under. */
export interface GraphQLContext extends AuthContext {
  services: Services;
  openLineage: OpenLineage;
}
