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
    id: t.exposeInt("id"),
    tag: t.exposeString("tag"),
    purposes: t.exposeStringList("purposes", { description: "Sorted; empty: the tag's data serves no purpose (no request or run reads it under any)." }),
    reason: t.exposeString("reason"),
    declaredBy: t.exposeString("declaredBy"),
    declaredAt: t.field({ type: "DateTime", resolve: (d) => d.createdAt }),
  }),
});

const PurposeAccessViaEnum = builder.enumType("PurposeAccessVia", {
  values: {
    READ: { description: "A request stating the purpose read the value (a field, an evidence document, a route)." },
    RUN: { description: "A run declaring the purpose was recorded reading it as an input." },
  },
});

const PurposeServedObject = builder.objectRef<PurposeServedRecord>("PurposeServed").implement({
  description: "A purpose a column (or an artifact) has served, by whom and how: the accesses grouped by purpose, principal and way.",
  fields: (t) => ({
    purpose: t.exposeString("purpose"),
    principal: t.exposeString("principal", { description: "The token's name (or 'open mode') that read it." }),
    via: t.field({ type: PurposeAccessViaEnum, resolve: (s) => s.via }),
    accesses: t.exposeInt("accesses", { description: "Requests (or runs) that read it so." }),
    tags: t.exposeStringList("tags", { description: "The tags it held when read." }),
    firstAt: t.field({ type: "DateTime", resolve: (s) => s.firstAt }),
    lastAt: t.field({ type: "DateTime", resolve: (s) => s.lastAt }),
  }),
});

const DeclareTagPurposesInput = builder.inputType("DeclareTagPurposesInput", {
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
    args: { input: t.arg({ type: DeclareTagPurposesInput, required: true }) },
    resolve: (_root, { input }, ctx) => ctx.services.compliance.purposes.declare(input.tag, input.purposes, input.reason, actorOf(ctx), (tx: DbTx) => ctx.auditInTransaction?.(tx) ?? Promise.resolve()),
  }),
}));

builder.queryFields((t) => ({
  tagPurposes: t.field({
    type: [TagPurposesObject],
    description: "The purposes each policy tag's data may serve (tags never declared serve any purpose: their clearance alone guards them); `history`: every declaration, oldest first.",
    args: { history: t.arg.boolean() },
    resolve: (_root, args, ctx) => ctx.services.compliance.purposes.list(args.history ?? false),
  }),
  purposesServed: t.field({
    type: [PurposeServedObject],
    authScopes: { admin: true },
    description:
      "Which purposes a column (`field`) or an artifact as a whole (no `field`) has served, by whom: tagged values read under a stated purpose, and runs recorded under a purpose that read it; most accesses first. Needs the admin scope.",
    args: { artifactId: t.arg.id({ required: true }), field: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.compliance.purposeAudit.served({ artifactId: String(artifactIdArg("artifactId", args.artifactId)), field: args.field ?? null }),
  }),
}));
