import { createContextCache } from "@pothos/core";
import DataLoader from "dataloader";
import { redactedFields, redactionsOf } from "../auth/pothos";
import type { ColumnView } from "../services/columns";
import type { PolicySubject, PolicyTagAssignmentRecord, PolicyTagHoldingRecord, TagDowngradeRecord, TagTarget } from "../services/compliance";
import { datasetKey } from "../services/compliance";
import { ArtifactRef } from "./artifact";
import { builder } from "./builder";
import { RedactionObject } from "./redactions";
import { ColumnObject } from "./column-lineage";
import { resolveKeysetConnection } from "./connection-page";
import type { GraphQLContext } from "./context";
import { artifactIdArg } from "./id-args";
import { columnSubject } from "./policy-subjects";

/**
 * Policy tags on the GraphQL side: the admin mutations (tagColumn, tagArtifact, downgradeTag), the
 * downgrade audit (tagAudit), what columns and artifacts hold, and the details policy tags protect
 * (a column's description, sample values and facets; an artifact's metadata), guarded with
 * `redactBy` (src/auth/pothos/redaction-plugin.ts enforces it).
 */


// Per request (and per subscription event: the context caches are reset), one statement per kind of subject.
const tagsLoader = createContextCache((ctx: GraphQLContext) => ctx.services.compliance.tagReader.batchedTagsOf());
/** What the GraphQL context hands the redaction plugin: the tags guarding a subject, batched. */
export const policyTagsOf = (ctx: GraphQLContext) => (subject: object) => tagsLoader(ctx)(subject as PolicySubject);

/** What the GraphQL context hands the redaction rule: the purposes each tag allows, for those that declared any (kept in memory by the compliance room for a second). */
export const tagPurposesOf = (ctx: GraphQLContext) => (tags: readonly string[]) => ctx.services.compliance.purposes.of(tags);

const columnTagsLoader = createContextCache(
  (ctx: GraphQLContext) =>
    new DataLoader<{ artifactId: string; field: string }, PolicyTagHoldingRecord[], string>((columns) => ctx.services.compliance.tagReader.ofColumns(columns), { cacheKeyFn: (c) => JSON.stringify([c.artifactId, c.field]) }),
);
const artifactTagsLoader = createContextCache((ctx: GraphQLContext) => new DataLoader<string, PolicyTagHoldingRecord[]>((ids) => ctx.services.compliance.tagReader.ofArtifacts(ids)));
const columnDetailsLoader = createContextCache(
  (ctx: GraphQLContext) => new DataLoader((columns: readonly { artifactId: string; field: string }[]) => ctx.services.compliance.columnDetails.of(columns), { cacheKeyFn: (c) => JSON.stringify([c.artifactId, c.field]) }),
);

const TagSourceEnum = builder.enumType("PolicyTagSource", {
  description: "Where an assignment comes from.",
  values: {
    ADMIN: { description: "Assigned by an admin (tagColumn, tagArtifact)." },
    OPENLINEAGE: { description: "Reported by a producer: OpenLineage's tags dataset facet." },
  },
});

const TagLevelEnum = builder.enumType("PolicyTagLevel", {
  description: "Through what a node holds a tag: the column itself, its dataset version as a whole, or its artifact.",
  values: {
    COLUMN: { description: "Held by the column itself: assigned to it, or inherited along column edges." },
    VERSION: { description: "Held by its dataset version as a whole: a dataset-wide column edge (a filter, a join, a grouping) carried it, and it covers every column of the version." },
    ARTIFACT: { description: "Held by its artifact: assigned to it, or inherited along wasDerivedFrom edges; it covers every column of the artifact." },
  },
});

const TagScopeEnum = builder.enumType("PolicyTagScope", {
  description: "How far a column's tag reaches: the dataset's column in every version, or one version's column.",
  values: {
    DATASET: { description: "The column of the dataset: every version of it, those recorded before and those recorded later, holds the tag as assigned there." },
    VERSION: { description: "The column of one dataset version (or of an artifact that is no dataset's version)." },
  },
});

const TagTargetObject = builder.objectRef<TagTarget>("PolicyTagTarget").implement({
  description:
    "What a tag is given to or removed from: a column of a dataset version, an artifact as a whole (`field` null), or a column of a dataset across its versions (`scope` DATASET: `namespace` and `name`, `artifactId` null).",
  fields: (t) => ({
    scope: t.field({ type: TagScopeEnum, description: "DATASET for a dataset's column across its versions; VERSION for one version's column or an artifact as a whole.", resolve: (target) => (target.kind === "DATASET_COLUMN" ? "DATASET" : "VERSION") }),
    artifactId: t.id({ nullable: true, description: "The version or artifact; null for a dataset's column (every version).", resolve: (target) => (target.kind === "DATASET_COLUMN" ? null : target.artifactId) }),
    artifact: t.field({ type: ArtifactRef, nullable: true, description: "The version or artifact (`artifactId`); null for a dataset's column (every version).", resolve: (target) => (target.kind === "DATASET_COLUMN" ? null : target.artifactId) }),
    namespace: t.string({ nullable: true, description: "Scope DATASET: the dataset's namespace.", resolve: (target) => (target.kind === "DATASET_COLUMN" ? target.namespace : null) }),
    name: t.string({ nullable: true, description: "Scope DATASET: the dataset's name.", resolve: (target) => (target.kind === "DATASET_COLUMN" ? target.name : null) }),
    field: t.string({ nullable: true, description: "The column's name (a nested field: its dotted path); null for an artifact as a whole.", resolve: (target) => (target.kind === "ARTIFACT" ? null : target.field) }),
  }),
});

const AssignmentObject = builder.objectRef<PolicyTagAssignmentRecord>("PolicyTagAssignment").implement({
  description: "A policy tag given to a node: the origin every node that inherits it names.",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The assignment's number, unique among assignments." }),
    tag: t.exposeString("tag", { description: "The policy tag." }),
    target: t.field({ type: TagTargetObject, description: "What it was given to.", resolve: (a) => a.target }),
    source: t.field({ type: TagSourceEnum, description: "Who gave it: an admin, or a producer through OpenLineage.", resolve: (a) => a.source }),
    reportedSource: t.exposeString("reportedSource", { nullable: true, description: "OpenLineage: the tag's own `source` (INTEGRATION, USER, DBT CORE, …)." }),
    value: t.exposeString("value", { nullable: true, description: "OpenLineage: the tag's `value`." }),
    reason: t.exposeString("reason", { nullable: true, description: "Why (ADMIN)." }),
    assignedBy: t.exposeString("assignedBy", { description: "The token's name or 'open mode' (ADMIN); the event's producer (OPENLINEAGE)." }),
    tokenId: t.exposeID("tokenId", { nullable: true, description: "The token that assigned it (ADMIN); null in open mode and for OPENLINEAGE." }),
    runId: t.exposeID("runId", { nullable: true, description: "OpenLineage: the run whose event reported it." }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was assigned." }),
  }),
});

const HoldingObject = builder.objectRef<PolicyTagHoldingRecord>("PolicyTagHolding").implement({
  description: "A tag a column or artifact holds, and where it came from.",
  fields: (t) => ({
    tag: t.exposeString("tag", { description: "The policy tag." }),
    level: t.field({ type: TagLevelEnum, description: "Through what it is held.", resolve: (h) => h.level }),
    depth: t.exposeInt("depth", { description: "Path length from the origin: 0 = assigned to this node itself (or to its column of the dataset, every version)." }),
    inherited: t.boolean({ description: "Whether it comes from another node (`depth` above 0); false when assigned here.", resolve: (h) => h.depth > 0 }),
    throughOpaqueStep: t.exposeBoolean("throughOpaqueStep", {
      description: "Inherited through an opaque step: a run that reported no column lineage for its output, which then holds every tag of its inputs as a whole (conservative propagation). downgradeTag removes it.",
    }),
    origin: t.field({ type: AssignmentObject, description: "The nearest assignment it comes from (ties: the oldest).", resolve: (h) => h.origin }),
  }),
});

const DowngradeObject = builder.objectRef<TagDowngradeRecord>("TagDowngrade").implement({
  description: "An inherited tag removed from one node: who, why and when, and what the node held then. Propagation never gives it the tag again.",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The downgrade's number: later downgrades have larger ones." }),
    target: t.field({ type: TagTargetObject, description: "The column or artifact the tag was removed from.", resolve: (d) => d.target }),
    tag: t.exposeString("tag", { description: "The tag removed." }),
    reason: t.exposeString("reason", { description: "Why, as given." }),
    downgradedBy: t.exposeString("downgradedBy", { description: "The token's name, or 'open mode'." }),
    tokenId: t.exposeID("tokenId", { nullable: true, description: "The token that downgraded it; null in open mode." }),
    origin: t.field({ type: AssignmentObject, nullable: true, description: "The origin the node held the tag from.", resolve: (d) => d.origin }),
    depth: t.exposeInt("depth", { description: "The path length it held the tag at." }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was downgraded." }),
  }),
});

builder.objectFields(ColumnObject, (t) => ({
  policyTags: t.field({
    type: [HoldingObject],
    description: "The policy tags this column holds: its own, its version's as a whole and its artifact's (unless downgraded on this column); one per tag, by tag.",
    resolve: (c, _args, ctx) => columnTagsLoader(ctx).load({ artifactId: c.artifactId, field: c.field }),
  }),
  sampleValues: t.field({
    type: ["JSON"],
    nullable: true,
    redactBy: (c: ColumnView) => columnSubject(c),
    description: "Sample values, as a producer reported them (the provgraph_columnSamples facet). Null without the clearance for each of the column's tags (see `redacted`).",
    resolve: async (c, _args, ctx) => (await columnDetailsLoader(ctx).load({ artifactId: c.artifactId, field: c.field })).sampleValues,
  }),
  facets: t.field({
    type: "JSON",
    nullable: true,
    redactBy: (c: ColumnView) => columnSubject(c),
    description: "What producers' facets say about this column, by facet: schema (its field entry), tags, dataQualityMetrics, provgraph_columnSamples. Null without the clearance for each of the column's tags.",
    resolve: async (c, _args, ctx) => (await columnDetailsLoader(ctx).load({ artifactId: c.artifactId, field: c.field })).facets,
  }),
  redacted: t.stringList({
    description: "The fields of this column redacted for you (description, sampleValues, facets): it holds a tag you have no clearance:<TAG> scope for, or one whose purposes your request does not state (see `redactions`). Empty when you see everything.",
    resolve: (c, args, ctx) => redactedFields("Column")(c, args, ctx),
  }),
  redactions: t.field({ type: [RedactionObject], description: "What `redacted` lists, each field with why: the tags that withhold it and, for each, the clearance or the purpose you lack.", resolve: (c, args, ctx) => redactionsOf("Column")(c, args, ctx) }),
}));

builder.objectFields(ArtifactRef, (t) => ({
  policyTags: t.field({
    type: [HoldingObject],
    description: "The policy tags this artifact holds as a whole (assigned to it, or inherited along wasDerivedFrom); one per tag. Its columns' own tags are on its columns.",
    resolve: (a, _args, ctx) => artifactTagsLoader(ctx).load(a.id),
  }),
  redacted: t.stringList({
    description: "The fields of this artifact redacted for you (metadata): it holds a tag you have no clearance:<TAG> scope for, or one whose purposes your request does not state (see `redactions`).",
    resolve: (a, args, ctx) => redactedFields("Artifact")(a, args, ctx),
  }),
  redactions: t.field({ type: [RedactionObject], description: "What `redacted` lists, each field with why: the tags that withhold it and, for each, the clearance or the purpose you lack.", resolve: (a, args, ctx) => redactionsOf("Artifact")(a, args, ctx) }),
}));

const ColumnTargetInput = builder.inputType("ColumnTargetInput", {
  description: "A column of a dataset version: its artifact id, or the dataset's namespace and name (its newest version, or `version`); and the field.",
  fields: (t) => ({
    artifactId: t.id({ description: "The version's artifact id (art_…): give it or namespace and name, not both or neither (INVALID_ARGUMENT). INVALID_ID when malformed, NOT_FOUND when unknown." }),
    namespace: t.string({ description: "The dataset's namespace, with `name`, instead of artifactId." }),
    name: t.string({ description: "The dataset's name, with `namespace`; NOT_FOUND when provgraph has no version of it." }),
    version: t.string({ description: "With namespace and name only (with artifactId: INVALID_ARGUMENT): the version, by default the newest; one not recorded is NOT_FOUND." }),
    field: t.string({ required: true, description: "The column's name (a nested field: its dotted path); NOT_FOUND when the version has no such column." }),
  }),
});

const NodeTargetInput = builder.inputType("PolicyNodeInput", {
  description: "A column (with `field`) or an artifact as a whole (without): by artifact id, or by dataset namespace and name (its newest version, or `version`).",
  fields: (t) => ({
    artifactId: t.id({ description: "The artifact (art_…): give it or namespace and name, not both or neither (INVALID_ARGUMENT). INVALID_ID when malformed, NOT_FOUND when unknown." }),
    namespace: t.string({ description: "The dataset's namespace, with `name`, instead of artifactId." }),
    name: t.string({ description: "The dataset's name, with `namespace`; NOT_FOUND when provgraph has no version of it." }),
    version: t.string({ description: "With namespace and name only (with artifactId: INVALID_ARGUMENT): the version, by default the newest; one not recorded is NOT_FOUND." }),
    field: t.string({ description: "The column's name (a nested field: its dotted path); absent, the artifact as a whole. NOT_FOUND when it has no such column." }),
  }),
});

const TagColumnInput = builder.inputType("TagColumnInput", {
  description: "A column to tag: the column, the tag, its scope and why.",
  fields: (t) => ({
    column: t.field({ type: ColumnTargetInput, required: true, description: "The column: by its version's artifact id, or its dataset's namespace and name, and its field." }),
    scope: t.field({
      type: TagScopeEnum,
      description: "DATASET (the default for a dataset's version): the column of every version of the dataset, past and future. VERSION: only the version named (the newest without `version`).",
    }),
    tag: t.string({ required: true, description: "PII, PCI, CONFIDENTIAL or any name a clearance can name: 1-64 letters, digits, '_', '.' or '-'." }),
    reason: t.string({ required: true, description: "Why: recorded with the assignment." }),
  }),
});

const TagArtifactInput = builder.inputType("TagArtifactInput", {
  description: "An artifact to tag as a whole: the artifact, the tag and why.",
  fields: (t) => ({
    artifactId: t.id({ required: true, description: "The artifact (art_…): INVALID_ID when malformed, NOT_FOUND when unknown." }),
    tag: t.string({ required: true, description: "As for tagColumn." }),
    reason: t.string({ required: true, description: "Why: recorded with the assignment." }),
  }),
});

const DowngradeTagInput = builder.inputType("DowngradeTagInput", {
  description: "An inherited tag to remove from one column or artifact, and why.",
  fields: (t) => ({
    target: t.field({ type: NodeTargetInput, required: true, description: "The column (with `field`) or artifact (without) to remove it from." }),
    tag: t.string({ required: true, description: "The tag to remove: the node must inherit it (a tag assigned there, or not held, is TAG_NOT_INHERITED)." }),
    reason: t.string({ required: true, description: "Why it no longer applies here (e.g. a salted hash whose salt lives elsewhere): recorded with who and when." }),
  }),
});

interface TagPayloadShape {
  assignment: PolicyTagAssignmentRecord;
  created: boolean;
  holders: number;
}

const TagPayload = builder.objectRef<TagPayloadShape>("TagPayload").implement({
  description: "What tagColumn or tagArtifact did: the assignment, whether it is new, and how many nodes hold the tag through it.",
  fields: (t) => ({
    assignment: t.field({ type: AssignmentObject, description: "The assignment: this one, or the one that stood already (`created` false).", resolve: (p) => p.assignment }),
    created: t.exposeBoolean("created", { description: "False when the node had this tag assigned already (the first assignment stands)." }),
    holders: t.exposeInt("holders", { description: "Nodes that hold the tag through this assignment once it has flowed (the backfill): the node itself and every descendant it reached." }),
  }),
});

const actorOf = (ctx: GraphQLContext) => ({ name: ctx.principal.name, tokenId: ctx.principal.tokenId });
/** The admin action's audit entry commits with it, naming the artifact (or the dataset's key) it touched. */
const auditing = (ctx: GraphQLContext, target: TagTarget) => (tx: Parameters<NonNullable<GraphQLContext["auditInTransaction"]>>[0]) =>
  ctx.auditInTransaction?.(tx, target.kind === "DATASET_COLUMN" ? datasetKey(target.namespace, target.name) : target.artifactId) ?? Promise.resolve();

async function tagged(ctx: GraphQLContext, target: TagTarget, tag: string, reason: string): Promise<TagPayloadShape> {
  const { assignment, created } = await ctx.services.compliance.tags.assign(target, tag, reason, actorOf(ctx), auditing(ctx, target));
  return { assignment, created, holders: await ctx.services.compliance.tagReader.holdersOf(assignment.id) };
}

builder.mutationFields((t) => ({
  tagColumn: t.field({
    type: TagPayload,
    description:
      "Gives a column a policy tag, with the reason — by default the dataset's column in every version, past and future (`scope`); every column whose lineage touches it inherits the tag (backfilled now along DIRECT and INDIRECT column edges and opaque steps, and at write time for new lineage and new versions). Needs the admin scope.",
    args: { input: t.arg({ type: TagColumnInput, required: true, description: "The column, the tag, its scope and why. A malformed tag, or a blank reason or one over 2,000 characters, is INVALID_ARGUMENT." }) },
    resolve: async (_root, { input }, ctx) => tagged(ctx, await ctx.services.compliance.targets.scopedColumn(input.column, input.scope), input.tag, input.reason),
  }),
  tagArtifact: t.field({
    type: TagPayload,
    description: "Gives an artifact (as a whole: all its columns) a policy tag, with the reason; every artifact derived from it inherits the tag along wasDerivedFrom. Needs the admin scope.",
    args: { input: t.arg({ type: TagArtifactInput, required: true, description: "The artifact, the tag and why. A malformed tag, or a blank reason or one over 2,000 characters, is INVALID_ARGUMENT." }) },
    resolve: async (_root, { input }, ctx) => tagged(ctx, await ctx.services.compliance.targets.artifact(String(artifactIdArg("artifactId", input.artifactId))), input.tag, input.reason),
  }),
  downgradeTag: t.field({
    type: DowngradeObject,
    description:
      "Removes an inherited tag from one column or artifact, recording who, why and when (tagAudit lists it). The tag is never given to that node again, and no longer flows on through it; nodes it also reaches by other paths keep it. TAG_NOT_INHERITED when the tag was assigned there or is not held. Needs the admin scope.",
    args: { input: t.arg({ type: DowngradeTagInput, required: true, description: "The column or artifact, the tag and why. A malformed tag, or a blank reason or one over 2,000 characters, is INVALID_ARGUMENT." }) },
    resolve: async (_root, { input }, ctx) => {
      const target = await ctx.services.compliance.targets.node(input.target);
      return ctx.services.compliance.tags.downgrade(target, input.tag, input.reason, actorOf(ctx), auditing(ctx, target));
    },
  }),
}));

builder.queryFields((t) => ({
  tagAudit: t.connection({
    type: DowngradeObject,
    authScopes: { admin: true },
    description: "Tag downgrades, newest first (optionally of one tag): who removed which inherited tag from which node, why and when. Needs the admin scope.",
    args: { tag: t.arg.string({ description: "Keeps the downgrades of this tag (exactly as written); absent, every downgrade." }) },
    resolve: (_root, args, ctx) =>
      resolveKeysetConnection<TagDowngradeRecord, number>(args, { connection: "tagAudit", keyOf: (d) => String(d.id), parseKey: (key) => (/^[1-9]\d{0,15}$/.test(key) ? Number(key) : undefined) }, (page) =>
        ctx.services.compliance.tagReader.downgrades(page, args.tag),
      ),
  }),
}));
