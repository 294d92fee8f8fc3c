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
    // Every connection pages the same way (the Relay cursor connection specification); a connection's own
    // field says what it lists.
    pageInfoTypeOptions: { description: "Where a page stands in its list: whether more lies after or before it, and the cursors to ask for them." },
    hasNextPageFieldOptions: { description: "Whether more items follow this page: ask again with `after: endCursor`." },
    hasPreviousPageFieldOptions: { description: "Whether items come before this page: ask again with `before: startCursor`." },
    startCursorFieldOptions: { description: "The cursor of the page's first item; null when the page is empty." },
    endCursorFieldOptions: { description: "The cursor of the page's last item; null when the page is empty." },
    defaultConnectionTypeOptions: { description: "A page of a list (a Relay cursor connection): its items, each with its cursor, and where the page stands." },
    defaultEdgeTypeOptions: { description: "One item of a page and its cursor." },
    edgesFieldOptions: { description: "The page's items, in the list's order." },
    pageInfoFieldOptions: { description: "Whether more items lie after or before this page, and the cursors to ask for them." },
    cursorFieldOptions: { description: "An opaque position in the list: pass it as `after` (or `before`) for the items that follow (or precede) it." },
    nodeFieldOptions: { description: "The item." },
    firstArgOptions: { description: "How many items to return, from the start of the list (or after `after`): by default 50, at most 500 (above, or negative, is PAGE_SIZE)." },
    afterArgOptions: { description: "Return the items after this cursor (an `endCursor` or an edge's `cursor` from an earlier page)." },
    lastArgOptions: { description: "How many items to return, from the end of the list (or before `before`): at most 500, as `first`." },
    beforeArgOptions: { description: "Return the items before this cursor (a `startCursor` or an edge's `cursor` from an earlier page)." },
  },
  errors: { defaultTypes: [] },
});

/** The builder's resolved type parameters, for helpers that take Pothos builders (e.g. shared argument sets). */
export type BuilderTypes = PothosSchemaTypes.ExtendDefaultTypes<SchemaConfig>;
