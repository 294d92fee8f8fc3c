import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from "@pothos/core";
import type { GraphQLField } from "graphql";
import { isScope, type Scope } from "../scopes";

/**
 * The scope a root field needs when it declares none: reads `read`, mutations `admin`. So a field
 * added without thinking about access is admin-only, never open; a recording or ingestion field
 * says `authScopes: { write: true }`. Enforcement: the whole operation is checked before anything
 * runs (src/auth/operation-authorization.ts), and @pothos/plugin-scope-auth checks each field again as it resolves.
 */
export const DEFAULT_ROOT_FIELD_SCOPES = {
  Query: { read: true },
  Subscription: { read: true },
  Mutation: { admin: true },
} as const;

/** Where a root field's scopes are kept on the built schema (its GraphQLField's extensions). */
const ROOT_SCOPES_EXTENSION = "provgraphRootScopes";

export class RootScopeDefaultsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const defaults = DEFAULT_ROOT_FIELD_SCOPES[fieldConfig.kind as keyof typeof DEFAULT_ROOT_FIELD_SCOPES];
    if (!defaults) return fieldConfig;
    const declared = (fieldConfig.pothosOptions as { authScopes?: unknown }).authScopes;
    const authScopes = declared ?? defaults;
    const scopes = scopesOf(`${fieldConfig.parentType}.${fieldConfig.name}`, authScopes);
    return {
      ...fieldConfig,
      extensions: { ...fieldConfig.extensions, [ROOT_SCOPES_EXTENSION]: scopes },
      pothosOptions: { ...fieldConfig.pothosOptions, authScopes },
    } as PothosOutputFieldConfig<Types>;
  }
}

SchemaBuilder.registerPlugin("provgraphRootScopes", RootScopeDefaultsPlugin);

/**
 * The scopes a root field needs, any one of which will do (scope-auth's reading of a scope map),
 * or undefined for a field that is no root field of a provgraph schema.
 */
export function rootFieldScopes(field: GraphQLField<unknown, unknown>): readonly Scope[] | undefined {
  return field.extensions?.[ROOT_SCOPES_EXTENSION] as readonly Scope[] | undefined;
}

/**
 * A root field's `authScopes` as scopes. Only a plain map ({ write: true }, { clearance: "PII" })
 * is accepted: a function or $all/$any could only be decided while the field resolves, and root
 * fields are decided for the whole operation before any of it runs.
 */
function scopesOf(coordinate: string, authScopes: unknown): Scope[] {
  const refuse = (why: string) => new Error(`${coordinate}: a root field's authScopes must be a plain map such as { write: true } or { clearance: "PII" } (${why})`);
  if (typeof authScopes !== "object" || authScopes === null || Array.isArray(authScopes)) throw refuse("a function or another value cannot be checked before the operation runs");
  const scopes: Scope[] = [];
  for (const [name, value] of Object.entries(authScopes)) {
    if (value === false || value === undefined) continue;
    const scope = name === "clearance" && typeof value === "string" ? `clearance:${value}` : value === true ? name : undefined;
    if (scope === undefined || !isScope(scope)) throw refuse(`${name}: ${JSON.stringify(value)} is not a scope`);
    scopes.push(scope);
  }
  if (scopes.length === 0) throw refuse("it names no scope");
  return scopes;
}
