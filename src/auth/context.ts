import type { AuthServices } from "./auth-services";
import type { Principal } from "./principal";

/** What auth needs of the GraphQL context (src/schema/context.ts extends it). */
export interface AuthContext {
  /** Who this request acts as: authenticated before the request is parsed (HTTP) or at connection (graphql-ws). */
  principal: Principal;
  auth: AuthServices;
  requestId: string;
  transport: "http" | "ws";
}
