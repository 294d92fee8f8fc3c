import SchemaBuilder from "@pothos/core";
import DataloaderPlugin from "@pothos/plugin-dataloader";
import ErrorsPlugin from "@pothos/plugin-errors";
import RelayPlugin from "@pothos/plugin-relay";
import type { GraphQLContext } from "./context";
import { decodeNodeId, encodeNodeId } from "./node-ids";

interface SchemaConfig {
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    JSON: { Input: unknown; Output: unknown };
    DateTime: { Input: Date; Output: Date | string };
    /** A whole number within ±(2^53 − 1): feed sequences. */
    SafeInt: { Input: number; Output: number };
  };
}

export const builder = new SchemaBuilder<SchemaConfig>({
  plugins: [ErrorsPlugin, RelayPlugin, DataloaderPlugin],
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
