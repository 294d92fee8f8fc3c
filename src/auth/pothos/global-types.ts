import type { FieldNullability, InputFieldMap, SchemaTypes, TypeParam } from "@pothos/core";
import type { AuditPlugin } from "./audit-plugin";
import type { RedactionPlugin } from "./redaction-plugin";
import type { RootScopeDefaultsPlugin } from "./root-scopes-plugin";

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      provgraphAudit: AuditPlugin<Types>;
      provgraphRootScopes: RootScopeDefaultsPlugin<Types>;
      provgraphRedaction: RedactionPlugin<Types>;
    }

    export interface FieldOptions<
      Types extends SchemaTypes = SchemaTypes,
      ParentShape = unknown,
      Type extends TypeParam<Types> = TypeParam<Types>,
      Nullable extends FieldNullability<Type> = FieldNullability<Type>,
      Args extends InputFieldMap = InputFieldMap,
      ResolveShape = unknown,
      ResolveReturnShape = unknown,
    > {
      /**
       * Guards the field by policy tags (src/auth/pothos/redaction-plugin.ts): the policy subject of
       * its parent. Without the clearance for each of the subject's tags the field answers null.
       */
      redactBy?: (parent: ParentShape) => object;
    }
  }
}
