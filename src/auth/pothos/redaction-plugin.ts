import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from "@pothos/core";
import type { GraphQLFieldResolver } from "graphql";
import type { AuthContext } from "../context";
import { holds } from "../principal";

/**
 * Policy-tag enforcement, once for every field that needs it: a field declared with `redactBy`
 * names the policy subject whose tags guard it (a column, an artifact, an event's runs); a viewer
 * holding `clearance:<TAG>` for every one of those tags sees the value, any other viewer sees null
 * — never an error, which would say more than the field's name — and the type's `redacted` marker
 * field (redactedFields) lists the fields it redacted. A context without a policy lookup redacts
 * every guarded field (fail closed).
 */
export class RedactionPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onOutputFieldConfig(fieldConfig: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const redactBy = (fieldConfig.pothosOptions as { redactBy?: RedactBy }).redactBy;
    if (redactBy) {
      const fields = guardedFields.get(fieldConfig.parentType) ?? new Map<string, RedactBy>();
      fields.set(fieldConfig.name, redactBy);
      guardedFields.set(fieldConfig.parentType, fields);
    }
    return fieldConfig;
  }

  override wrapResolve(resolver: GraphQLFieldResolver<unknown, Types["Context"], object>, fieldConfig: PothosOutputFieldConfig<Types>): GraphQLFieldResolver<unknown, Types["Context"], object> {
    const redactBy = (fieldConfig.pothosOptions as { redactBy?: RedactBy }).redactBy;
    if (!redactBy) return resolver;
    return async (parent, args, context, info) => ((await missingClearances(context as AuthContext, redactBy(parent))).length > 0 ? null : resolver(parent, args, context, info));
  }
}

SchemaBuilder.registerPlugin("provgraphRedaction", RedactionPlugin);

/** Names the policy subject of a guarded field's parent; what a subject is, the policy lookup knows. */
export type RedactBy = (parent: unknown) => object;

/** Guarded fields by type, collected while the schema is built. */
const guardedFields = new Map<string, Map<string, RedactBy>>();

/** The tags guarding `subject` that the viewer holds no clearance for (every tag when the context has no lookup). */
export async function missingClearances(context: AuthContext, subject: object): Promise<string[]> {
  if (!context.policyTagsOf) return ["(no policy lookup)"];
  const tags = await context.policyTagsOf(subject);
  return tags.filter((tag) => !holds(context.principal, `clearance:${tag}`));
}

/**
 * The resolver of a type's `redacted` marker: the names of its guarded fields this viewer sees as
 * null because of a missing clearance, in declaration order (empty when it sees everything).
 */
export function redactedFields(typeName: string) {
  return async (parent: unknown, _args: unknown, context: AuthContext): Promise<string[]> => {
    const redacted: string[] = [];
    for (const [field, redactBy] of guardedFields.get(typeName) ?? []) if ((await missingClearances(context, redactBy(parent))).length > 0) redacted.push(field);
    return redacted;
  };
}
