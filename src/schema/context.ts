import type { AuthContext } from "../auth/context";
import type { Services } from "../services/services";

/** What every resolver receives: the core services, who the request acts as, and the request id errors are logged under. */
export interface GraphQLContext extends AuthContext {
  services: Services;
}
