import type { OpenLineage } from "../openlineage";
import type { Services } from "../services/services";

/** What every resolver receives: the core services, OpenLineage ingestion, and the request id errors are logged under. */
export interface GraphQLContext {
  services: Services;
  openLineage: OpenLineage;
  requestId: string;
}
