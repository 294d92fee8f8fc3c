import SchemaBuilder from "@pothos/core";
import DataloaderPlugin from "@pothos/plugin-dataloader";
import ErrorsPlugin from "@pothos/plugin-errors";
import RelayPlugin from "@pothos/plugin-relay";
import ScopeAuthPlugin from "@pothos/plugin-scope-auth";
import { AUDIT_PLUGIN, type ProvgraphAuthScopes, REDACTION_PLUGIN, ROOT_SCOPES_PLUGIN, scopeAuthOptions } from "../auth/pothos";
import type { GraphQLContext } from "./context";
import { decodeNodeId, encodeNodeId } from "./node-ids";

interface SchemaConfig {
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  AuthScopes: ProvgraphAuthScopes;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    DateTime: { Input: Date; Output: Date | string };
    /** A whole number within ±(2^53 − 1): feed sequences. */
    SafeInt: { Input: number; Output: number };
  };
}

export const builder = new SchemaBuilder<SchemaConfig>({
  // Audit wraps every mutation outermost; root fields get their default scope (read, or admin for
  // mutations) before scope-auth, which checks them ahead of every other wrapper; policy-tag
  // redaction then decides, per guarded field, whether its resolver runs at all.
  plugins: [AUDIT_PLUGIN, ROOT_SCOPES_PLUGIN, ScopeAuthPlugin, REDACTION_PLUGIN, ErrorsPlugin, RelayPlugin, DataloaderPlugin],
  scopeAuth: scopeAuthOptions,
  defaultFieldNullability: false,
  relay: {
    clientMutationId: "omit",
    cursorType: "String",
    encodeGlobalID: encodeNodeId,
    decodeGlobalID: decodeNodeId,
    // node/nodes and the Node interface are ours (src/schema/node.ts): ids resolve synchronously.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
  },
  errors: { defaultTypes: [] },
});

/** The builder's resolved type parameters, for helpers that take Pothos builders (e.g. shared argument sets). */
export type BuilderTypes = PothosSchemaTypes.ExtendDefaultTypes<SchemaConfig>;
