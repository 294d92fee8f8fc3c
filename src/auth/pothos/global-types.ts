import type { SchemaTypes } from "@pothos/core";
import type { AuditPlugin } from "./audit-plugin";
import type { RootScopeDefaultsPlugin } from "./root-scopes-plugin";

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      provgraphAudit: AuditPlugin<Types>;
      provgraphRootScopes: RootScopeDefaultsPlugin<Types>;
    }
  }
}
