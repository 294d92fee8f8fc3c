import type { DbTx } from "../db/client";
import type { PurposeServedRecord, TagPurposesRecord } from "../services/compliance";
import { builder } from "./builder";
import type { GraphQLContext } from "./context";
import { artifactIdArg } from "./id-args";

/**
 * Purposes on the GraphQL side (docs/compliance.md "Purposes"): what each policy tag's data may
 * serve (declareTagPurposes, tagPurposes), and the purpose audit (purposesServed: which purposes a
 * column has served, by whom). The rule itself is the redaction rule's (src/auth/pothos).
 */

const TagPurposesObject = builder.objectRef<TagPurposesRecord>("TagPurposes").implement({
  description: "The purposes a policy tag's data may serve, as declared (the newest declaration of a tag applies).",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The declaration's id: a later declaration has a higher one." }),
    tag: t.exposeString("tag", { description: "The policy tag (PII, PCI, …)." }),
    purposes: t.exposeStringList("purposes", { description: "Sorted; empty: the tag's data serves no purpose (no request or run reads it under any)." }),
    reason: t.exposeString("reason", { description: "Why, as given with the declaration." }),
    declaredBy: t.exposeString("declaredBy", { description: "Who declared it: the token's name, or 'open mode'." }),
    declaredAt: t.field({ type: "DateTime", description: "When it was declared.", resolve: (d) => d.createdAt }),
  }),
});

const PurposeAccessViaEnum = builder.enumType("PurposeAccessVia", {
  description: "How a tagged value was read under a purpose: by a request, or by a run as an input.",
  values: {
    READ: { description: "A request stating the purpose read the value (a field, an evidence document, a route)." },
    RUN: { description: "A run declaring the purpose was recorded reading it as an input." },
  },
});

const PurposeServedObject = builder.objectRef<PurposeServedRecord>("PurposeServed").implement({
  description: "A purpose a column (or an artifact) has served, by whom and how: the accesses grouped by purpose, principal and way.",
  fields: (t) => ({
    purpose: t.exposeString("purpose", { description: "The purpose the request stated (READ) or the run declared (RUN)." }),
    principal: t.exposeString("principal", { description: "The token's name (or 'open mode') that read it." }),
    via: t.field({ type: PurposeAccessViaEnum, description: "How it was read: by a request (READ) or by a run as an input (RUN).", resolve: (s) => s.via }),
    accesses: t.exposeInt("accesses", { description: "Requests (or runs) that read it so." }),
    tags: t.exposeStringList("tags", { description: "The tags it held when read." }),
    firstAt: t.field({ type: "DateTime", description: "When the first of these accesses was made.", resolve: (s) => s.firstAt }),
    lastAt: t.field({ type: "DateTime", description: "When the latest of these accesses was made.", resolve: (s) => s.lastAt }),
  }),
});

const DeclareTagPurposesInput = builder.inputType("DeclareTagPurposesInput", {
  description: "The purposes a policy tag's data may serve, with the reason: they replace the tag's current purposes whole.",
  fields: (t) => ({
    tag: t.string({ required: true, description: "The policy tag (PII, PCI, …)." }),
    purposes: t.stringList({ required: true, description: "The purposes its data may serve (fraud-investigation, regulatory-reporting): 1-64 letters, digits, '_', '.' or '-' each; at most 100; empty: none." }),
    reason: t.string({ required: true, description: "Why: recorded with the declaration." }),
  }),
});

const actorOf = (ctx: GraphQLContext) => ({ name: ctx.principal.name, tokenId: ctx.principal.tokenId });

builder.mutationFields((t) => ({
  declareTagPurposes: t.field({
    type: TagPurposesObject,
    description:
      "Declares the purposes a policy tag's data may serve, with the reason (a new declaration replaces the tag's purposes; every declaration stays on record). From then on a value the tag guards is read only by a request stating one of them (X-Provgraph-Purpose), and a run declaring a purpose reads an input holding the tag only if the tag allows it. Needs the admin scope.",
    args: { input: t.arg({ type: DeclareTagPurposesInput, required: true, description: "The tag, its purposes and the reason. A tag that is not 1-64 letters, digits, '_', '.' or '-', a malformed purpose or an empty reason is INVALID_ARGUMENT." }) },
    resolve: (_root, { input }, ctx) => ctx.services.compliance.purposes.declare(input.tag, input.purposes, input.reason, actorOf(ctx), (tx: DbTx) => ctx.auditInTransaction?.(tx) ?? Promise.resolve()),
  }),
}));

builder.queryFields((t) => ({
  tagPurposes: t.field({
    type: [TagPurposesObject],
    description: "The purposes each policy tag's data may serve (tags never declared serve any purpose: their clearance alone guards them); `history`: every declaration, by tag and oldest first within each tag.",
    args: { history: t.arg.boolean({ description: "true: every declaration, by tag and oldest first within each tag; false or left out: each tag's newest declaration, by tag." }) },
    resolve: (_root, args, ctx) => ctx.services.compliance.purposes.list(args.history ?? false),
  }),
  purposesServed: t.field({
    type: [PurposeServedObject],
    authScopes: { admin: true },
    description:
      "Which purposes a column (`field`) or an artifact as a whole (no `field`) has served, by whom: tagged values read under a stated purpose, and runs recorded under a purpose that read it; most accesses first. Needs the admin scope.",
    args: {
      artifactId: t.arg.id({ required: true, description: "The artifact (art_…; INVALID_ID when malformed). One never read under a purpose gives an empty list." }),
      field: t.arg.string({ description: "A column of the artifact; left out: accesses to the artifact as a whole, not to its columns." }),
    },
    resolve: (_root, args, ctx) => ctx.services.compliance.purposeAudit.served({ artifactId: String(artifactIdArg("artifactId", args.artifactId)), field: args.field ?? null }),
  }),
}));
