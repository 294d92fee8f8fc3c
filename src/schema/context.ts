import type { Services } from "../services/services";

/** What every resolver receives: the core services, and the request id errors are logged under. */
export interface GraphQLContext {
  services: Services;
  requestId: string;
}
