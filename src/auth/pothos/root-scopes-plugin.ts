import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from "@pothos/core";

/**
 * The scope a root field needs when it declares none: reads `read`, mutations `admin`. So a field
 * added without thinking about access is admin-only, never open; a recording or ingestion field
 * says `authScopes: { write: true }`. Enforcement itself is @pothos/plugin-scope-auth's.
 */
export const DEFAULT_ROOT_FIELD_SCOPES = {
  Query: { read: true },
  Subscription: { read: true },
  Mutation: { admin: true },
} as const;

export class RootScopeDefaultsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const defaults = DEFAULT_ROOT_FIELD_SCOPES[fieldConfig.kind as keyof typeof DEFAULT_ROOT_FIELD_SCOPES];
    if (!defaults || (fieldConfig.pothosOptions as { authScopes?: unknown }).authScopes !== undefined) return fieldConfig;
    return { ...fieldConfig, pothosOptions: { ...fieldConfig.pothosOptions, authScopes: defaults } } as PothosOutputFieldConfig<Types>;
  }
}

SchemaBuilder.registerPlugin("provgraphRootScopes", RootScopeDefaultsPlugin);
