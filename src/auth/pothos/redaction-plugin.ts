import SchemaBuilder, { BasePlugin, createContextCache, type PothosOutputFieldConfig, type SchemaTypes } from "@pothos/core";
import type { GraphQLFieldResolver } from "graphql";
import type { AuthContext } from "../context";
import { holds } from "../principal";

/**
 * Policy-tag enforcement, once for every field that needs it: a field declared with `redactBy`
 * names the policy subject whose tags guard it (a column, an artifact, a run, an event's runs and
 * datasets); a viewer the redaction rule (withholdingReasons) lets through sees the value, any
 * other viewer sees null — never an error, which would say more than the field's name — and the
 * type's `redacted` marker field (redactedFields) lists the fields it redacted. A context without a
 * policy lookup redacts every guarded field (fail closed). Parts of a JSON document (PROV-JSON, an
 * evidence document) and routes outside GraphQL decide by the same rule (withheld).
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
    return async (parent, args, context, info) => ((await withholdingReasons(context as Viewer, redactBy(parent))).length > 0 ? null : resolver(parent, args, context, info));
  }
}

SchemaBuilder.registerPlugin("provgraphRedaction", RedactionPlugin);

/** Names the policy subject of a guarded field's parent; what a subject is, the policy lookup knows. */
export type RedactBy = (parent: unknown) => object;

/**
 * Who is looking, as the redaction rule needs it: the principal, the purpose its request states, and
 * the policy lookups of its request (the tags guarding a subject, the purposes tags allow); and,
 * when reads are audited, where a tagged value the rule lets through is noted.
 */
export type Viewer = Pick<AuthContext, "principal" | "policyTagsOf" | "purpose" | "tagPurposesOf" | "noteTaggedRead">;

/**
 * Why one tag withholds a value: the viewer holds no `clearance:<TAG>` (CLEARANCE), or the tag
 * declares the purposes its data may serve and the request states none of them (PURPOSE: `purpose`
 * is what it stated, null for none; `allowedPurposes` what the tag allows).
 */
export type Withholding = { tag: string; missing: "CLEARANCE" } | { tag: string; missing: "PURPOSE"; purpose: string | null; allowedPurposes: readonly string[] };

/** Guarded fields by type, collected while the schema is built. */
const guardedFields = new Map<string, Map<string, RedactBy>>();

/** The rule's decision on one subject for one viewer: why it withholds, the subject's tags, and whether the read was noted for the audit. */
interface Decision {
  reasons: Withholding[];
  tags: readonly string[];
  noted: boolean;
}

/**
 * Decisions per request (and per subscription event: the context caches are reset), by subject: a
 * read asks once per guarded field — a column's description, sample values and facets are three
 * asks about one subject — and the answer cannot change within the request.
 */
const decisions = createContextCache((_viewer: object) => new Map<string, Promise<Decision>>());
/**
 * And by tag set: the rule looks only at the tags, and a dataset's columns mostly hold the same ones.
 * Both are kept: with this one alone the purpose check's bench row measured 1.08–1.11 (1.02–1.05 with both).
 */
const reasonsByTags = createContextCache((_viewer: object) => new Map<string, Promise<Withholding[]>>());

/**
 * The redaction rule, the one place it is decided: why the viewer may not see what `subject`
 * guards — for each policy tag the subject carries, the viewer needs its `clearance:<TAG>` and,
 * when the tag declares purposes, to act under one of them (every tag withholds when there is no
 * policy lookup). Empty: the viewer sees it, and a tagged value seen is noted for the purpose audit
 * (unless `audit` is false: the markers that only say what is redacted).
 */
export async function withholdingReasons(viewer: Viewer, subject: object, options: { audit: boolean } = { audit: true }): Promise<Withholding[]> {
  if (!viewer.policyTagsOf) return [{ tag: "(no policy lookup)", missing: "CLEARANCE" }];
  const asked = decisions(viewer);
  const key = JSON.stringify(subject);
  let decided = asked.get(key);
  if (!decided) asked.set(key, (decided = decide(viewer, subject)));
  const decision = await decided;
  if (decision.reasons.length === 0 && decision.tags.length > 0 && options.audit && !decision.noted) {
    decision.noted = true;
    viewer.noteTaggedRead?.(subject, decision.tags);
  }
  return decision.reasons;
}

async function decide(viewer: Viewer, subject: object): Promise<Decision> {
  const tags = await viewer.policyTagsOf!(subject);
  if (tags.length === 0) return { reasons: [], tags, noted: false };
  const known = reasonsByTags(viewer);
  const key = tags.join("\u0000");
  let reasons = known.get(key);
  if (!reasons) known.set(key, (reasons = reasonsFor(viewer, tags)));
  return { reasons: await reasons, tags, noted: false };
}

/** Why the viewer may not see a value guarded by these tags (empty: it may). */
async function reasonsFor(viewer: Viewer, tags: readonly string[]): Promise<Withholding[]> {
  const reasons: Withholding[] = [];
  const cleared: string[] = [];
  for (const tag of tags) {
    if (holds(viewer.principal, `clearance:${tag}`)) cleared.push(tag);
    else reasons.push({ tag, missing: "CLEARANCE" });
  }
  if (cleared.length > 0) {
    // Fail closed: without the purposes' lookup no tag is known to serve the request's purpose.
    const allowed = viewer.tagPurposesOf ? await viewer.tagPurposesOf(cleared) : null;
    const purpose = viewer.purpose ?? null;
    for (const tag of cleared) {
      const serves = allowed === null ? [] : allowed.get(tag);
      if (serves !== undefined && (purpose === null || !serves.includes(purpose))) reasons.push({ tag, missing: "PURPOSE", purpose, allowedPurposes: serves });
    }
  }
  return reasons;
}

/** For each subject, whether the rule withholds what it guards from the viewer (parts of documents, routes outside GraphQL). */
export async function withheld(viewer: Viewer, subjects: readonly object[]): Promise<boolean[]> {
  return Promise.all(subjects.map(async (subject) => (await withholdingReasons(viewer, subject)).length > 0));
}

/** The fields of `typeName` declared with `redactBy` (the schema walk checks them; the marker lists them). */
export function guardedFieldsOf(typeName: string): string[] {
  return [...(guardedFields.get(typeName)?.keys() ?? [])];
}

/**
 * The resolver of a type's `redacted` marker: the names of its guarded fields this viewer sees as
 * null because of the rule, in declaration order (empty when it sees everything).
 */
export function redactedFields(typeName: string) {
  return async (parent: unknown, _args: unknown, context: AuthContext): Promise<string[]> => (await redactionsOf(typeName)(parent, _args, context)).map((r) => r.field);
}

/** The resolver of a type's `redactions` marker: each guarded field this viewer sees as null, with why (each tag and what it lacks). */
export function redactionsOf(typeName: string) {
  return async (parent: unknown, _args: unknown, context: AuthContext): Promise<{ field: string; reasons: Withholding[] }[]> => {
    const redacted: { field: string; reasons: Withholding[] }[] = [];
    for (const [field, redactBy] of guardedFields.get(typeName) ?? []) {
      // Asking what is redacted reads no value: not noted for the audit.
      const reasons = await withholdingReasons(context, redactBy(parent), { audit: false });
      if (reasons.length > 0) redacted.push({ field, reasons });
    }
    return redacted;
  };
}
