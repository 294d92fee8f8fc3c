import { createContextCache } from "@pothos/core";
import DataLoader from "dataloader";
import type { DbTx } from "../db/client";
import {
  type CatalogueFactRecord,
  type CatalogueTarget,
  type ErasureAction,
  type ErasurePlanRecord,
  type ErasureRoot,
  EVIDENCE_RULES,
  type EvidenceEdge,
  type EvidenceInput,
  type EvidenceNode,
  type EvidencePackage,
  type EvidenceRun,
  type EvidenceVerification,
  type EvidenceViolation,
  evidenceTooLarge,
  type EvidenceQuery,
  type ServedEvidencePackage,
  type DocumentSignature,
  type SignatureCheck,
} from "../services/compliance";
import { InvalidArgumentError } from "../services/errors";
import { isIdOfKind } from "../services/ids";
import { ArtifactRef, DatasetRefObject } from "./artifact";
import { builder } from "./builder";
import { RedactionObject } from "./redactions";
import { resolveKeysetConnection } from "./connection-page";
import type { GraphQLContext } from "./context";
import { ExecutionRef, ReplayPinsObject } from "./execution";
import { evidenceAsViewed, hiddenRuns } from "./evidence-view";
import { heavyRead } from "./heavy-read";
import { artifactIdArg } from "./id-args";
import { runSubject } from "./policy-subjects";
import { redactedFields, redactionsOf } from "../auth/pothos";
import { SENSITIVE } from "./sensitive";

/**
 * Compliance on the GraphQL side (translation only): evidence packages and their verification,
 * erasure catalogue facts, plans and their execution.
 */

const EvidenceRuleEnum = builder.enumType("EvidenceRule", {
  description: "Why a figure is not provable (the acceptance gate of an evidence package).",
  values: {
    MISSING_INPUT_VERSION: { description: "The run used an input without a version: an unversioned dataset, or an OpenLineage input resolved to the newest known version (no version facet); or it read nothing provgraph holds and names no input versions." },
    MISSING_IMAGE_DIGEST: { description: "The run names no image digest (pins.imageDigest): the same code on another image may compute another number." },
    IMAGE_NOT_DIGEST: {
      description: "The run names its image by something other than a content digest — a tag (:latest), an elided digest (sha256:4d7e…9c1): only `sha256:` and 64 hex digits, optionally after `name@`, pins an image.",
    },
    NON_DETERMINISTIC: { description: "The run is flagged non-deterministic (pins.deterministic false)." },
    DETERMINISM_UNKNOWN: { description: "The run does not say whether it is deterministic (pins.deterministic null): unknown counts as not provable." },
    UNRECORDED_RUN: { description: "An edge of the closure names a run provgraph has no record of: nothing pins it." },
    CLOSURE_TRUNCATED: { description: "The closure was cut at its budget: what lies beyond is unknown." },
  } satisfies Record<(typeof EVIDENCE_RULES)[number], unknown>,
});

const EvidenceLayerEnum = builder.enumType("EvidenceEdgeLayer", {
  description: "Which lineage an edge of an evidence closure is: artifact-level (wasDerivedFrom) or column-level.",
  values: { ARTIFACT: { description: "wasDerivedFrom (kind: its edge kind)." }, COLUMN: { description: "A column edge (kind: DIRECT or INDIRECT; targetField null = dataset-wide)." } },
});

const EvidenceNodeObject = builder.objectRef<EvidenceNode>("EvidenceNode").implement({
  description: "An artifact, or a column of a dataset version, in the backward closure.",
  fields: (t) => ({
    artifactId: t.exposeID("artifactId", { description: "The artifact (for a column: its dataset version)." }),
    artifact: t.field({ type: ArtifactRef, description: "The artifact (for a column: its dataset version).", resolve: (n) => n.artifactId }),
    field: t.exposeString("field", { nullable: true, description: "A column of the artifact; null = the artifact itself." }),
    dataset: t.field({ type: DatasetRefObject, nullable: true, description: "The dataset version it is (or is a column of).", resolve: (n) => n.dataset }),
    depth: t.exposeInt("depth", { description: "Fewest hops from the root." }),
    opaque: t.exposeBoolean("opaque", { description: "An opaque step's output: a column no column edge reaches though a run produced its version (the run reported no column lineage); the closure goes on from its whole version." }),
    rawSource: t.exposeBoolean("rawSource", { description: "A raw source: nothing recorded produced it (by asOf) — a root of the closure, pinned by its own version." }),
  }),
});

export const DocumentSignatureObject = builder.objectRef<DocumentSignature>("DocumentSignature").implement({
  description:
    "The server's Ed25519 signature of a filed document: a JWS (RFC 7515, compact) whose payload is the document's exact text. A verifier needs only it and the public key (GET /api/v1/signing-keys); see the docs for openssl and scripts/verify-signature.mjs.",
  fields: (t) => ({
    algorithm: t.exposeString("algorithm", { description: "EdDSA (Ed25519)." }),
    keyId: t.exposeString("keyId", { description: "The signing key's JWK thumbprint (RFC 7638): its `kid` in the key set." }),
    contentType: t.exposeString("contentType", { description: "What the payload is: provgraph-evidence/2, provgraph-erasure-plan/1." }),
    jws: t.exposeString("jws", { description: "<header>.<payload>.<signature>, each base64url." }),
  }),
});

const SignatureCheckObject = builder.objectRef<SignatureCheck>("SignatureCheck").implement({
  description: "A signature checked against the server's signing keys (current and previous), offline: no stored record is consulted.",
  fields: (t) => ({
    valid: t.exposeBoolean("valid", { description: "A key the server signs or signed with made this signature over exactly the payload (in verifyEvidence, also: the payload is the document given)." }),
    keyId: t.exposeString("keyId", { nullable: true, description: "The key the JWS header names (`kid`), known or not (null: the JWS cannot be read or names none)." }),
    contentType: t.exposeString("contentType", { nullable: true, description: "What the JWS header says the payload is (`cty`): provgraph-evidence/2 or provgraph-erasure-plan/1 (null: the JWS cannot be read or says nothing)." }),
    reason: t.exposeString("reason", { nullable: true, description: "Why it is not valid (null when it is)." }),
    payload: t.exposeString("payload", { nullable: true, description: "The signed text." }),
  }),
});

const EvidenceEdgeObject = builder.objectRef<EvidenceEdge>("EvidenceEdge").implement({
  description: "An edge of the closure, from what was derived from (source) to what was derived (target), with the run that produced it.",
  fields: (t) => ({
    layer: t.field({ type: EvidenceLayerEnum, description: "ARTIFACT (wasDerivedFrom) or COLUMN (a column edge).", resolve: (e) => e.layer }),
    sourceId: t.exposeID("sourceId", { description: "The artifact derived from (for COLUMN: the dataset version of the source column)." }),
    sourceField: t.exposeString("sourceField", { nullable: true, description: "COLUMN: the source column; null for ARTIFACT." }),
    targetId: t.exposeID("targetId", { description: "The artifact derived (for COLUMN: the dataset version of the target column)." }),
    targetField: t.exposeString("targetField", { nullable: true, description: "COLUMN: the target column (null: a dataset-wide edge, to the whole version); null for ARTIFACT." }),
    runId: t.exposeID("runId", { description: "The run that produced the edge (see `runs`)." }),
    kind: t.exposeString("kind", { description: "INDEPENDENT, CO_INPUT, … (ARTIFACT); DIRECT or INDIRECT (COLUMN)." }),
    subtype: t.exposeString("subtype", { nullable: true, description: "COLUMN: TRANSFORMATION, AGGREGATION, IDENTITY, FILTER, … as reported (null: none reported); null for ARTIFACT." }),
  }),
});

const EvidenceInputObject = builder.objectRef<EvidenceInput>("EvidenceInput").implement({
  description: "An input a run of the closure consumed, and whether its version is pinned.",
  fields: (t) => ({
    artifactId: t.exposeID("artifactId", { description: "The artifact consumed." }),
    artifact: t.field({ type: ArtifactRef, description: "The artifact consumed.", resolve: (i) => i.artifactId }),
    role: t.exposeString("role", { description: "The role the run consumed it in." }),
    dataset: t.field({ type: DatasetRefObject, nullable: true, description: "The dataset version it is (null: not a dataset version).", resolve: (i) => i.dataset }),
    pinned: t.exposeBoolean("pinned", { description: "Its version is pinned: a content-addressed artifact, or a dataset version the event named — not the newest known, not unversioned." }),
    resolvedBy: t.exposeString("resolvedBy", { nullable: true, description: "OpenLineage: VERSION_FACET, LATEST_KNOWN or UNVERSIONED." }),
  }),
});

const EvidenceRunObject = builder.objectRef<EvidenceRun>("EvidenceRun").implement({
  description: "A run that produced an edge of the closure, with its four pins.",
  fields: (t) => ({
    runId: t.exposeID("runId", { description: "The run's id." }),
    execution: t.field({ type: ExecutionRef, nullable: true, description: "The run as recorded now (null: provgraph has no record of it, UNRECORDED_RUN).", resolve: (r) => (r.operation ? r.runId : null) }),
    params: t.expose("params", {
      type: "JSON",
      nullable: true,
      redactBy: (r) => runSubject(r),
      description: "As the run reported them. Null without the clearance for each policy tag held by what the run used or produced (see `redacted`); the document leaves them out the same way.",
    }),
    pins: t.field({ type: ReplayPinsObject, description: "Its input versions, code version, image digest and deterministic flag, as recorded by the package's asOf (all null for an unrecorded run).", resolve: (r) => r.pins }),
    inputs: t.field({ type: [EvidenceInputObject], description: "What it consumed (recorded by asOf), by role, then artifact id.", resolve: (r) => r.inputs }),
    produced: t.exposeIDList("produced", { description: "What it produced inside the closure." }),
    violations: t.field({ type: [EvidenceRuleEnum], description: "The rules of the acceptance gate this run breaks (empty: none).", resolve: (r) => r.violations }),
    redacted: t.stringList({ description: "The fields of this run redacted for you (params).", resolve: (r, args, ctx) => redactedFields("EvidenceRun")(r, args, ctx) }),
    redactions: t.field({ type: [RedactionObject], description: "What `redacted` lists, each field with why: the tags that withhold it and, for each, the clearance or the purpose you lack.", resolve: (r, args, ctx) => redactionsOf("EvidenceRun")(r, args, ctx) }),
  }),
});

const EvidenceViolationObject = builder.objectRef<EvidenceViolation>("EvidenceViolation").implement({
  description: "One rule of the acceptance gate broken: the rule, the run at fault and what it produced in the closure.",
  fields: (t) => ({
    rule: t.field({ type: EvidenceRuleEnum, description: "The rule broken.", resolve: (v) => v.rule }),
    runId: t.exposeID("runId", { nullable: true, description: "The run at fault (null for CLOSURE_TRUNCATED)." }),
    execution: t.field({ type: ExecutionRef, nullable: true, description: "The run at fault as recorded now (null for UNRECORDED_RUN and CLOSURE_TRUNCATED).", resolve: (v) => (v.rule === "UNRECORDED_RUN" ? null : v.runId) }),
    artifactIds: t.exposeIDList("artifactIds", { description: "What the run produced inside the closure: the nodes it stands behind." }),
    inputs: t.exposeIDList("inputs", { description: "MISSING_INPUT_VERSION: its inputs without a version." }),
  }),
});

const EvidenceRootObject = builder.objectRef<EvidencePackage["root"]>("EvidenceRoot").implement({
  description: "The figure an evidence package is of: an artifact, or one column of a dataset version.",
  fields: (t) => ({
    artifactId: t.exposeID("artifactId", { description: "The artifact (asked by namespace and name: the dataset version selected)." }),
    artifact: t.field({ type: ArtifactRef, description: "The artifact (asked by namespace and name: the dataset version selected).", resolve: (r) => r.artifactId }),
    field: t.exposeString("field", { nullable: true, description: "The column; null = the artifact as a whole." }),
    dataset: t.field({ type: DatasetRefObject, nullable: true, description: "The dataset version the root is, or is a column of (null: not a dataset version).", resolve: (r) => r.dataset }),
  }),
});

/** The package of `query` as the viewer may see it, built off the event loop (three aliases of one package: built once). */
function viewedPackage(ctx: GraphQLContext, query: EvidenceQuery): Promise<ServedEvidencePackage> {
  return evidenceAsViewed(ctx, (withheld) => heavyRead(ctx, "evidencePackage", { query, withheld }, { shared: true }), ctx.services.compliance.signer);
}

/** A list of a package served without its lists (more than RESULT_MAX_NODES entries): RESULT_TOO_LARGE. */
function whole<T>(pkg: ServedEvidencePackage, field: string, list: T | null): T {
  if (list === null) throw evidenceTooLarge(pkg, field);
  return list;
}

const EvidencePackageObject = builder.objectRef<ServedEvidencePackage>("EvidencePackage").implement({
  description:
    "Seed \"The evidence package\": the backward closure of a figure down to its raw sources, every run in it with its four pins, and the acceptance gate — " +
    "provable only when no run lacks an input version or an image digest or is (or may be) non-deterministic. `document` is all of it as one canonical JSON document, `sha256` its digest. " +
    "A package of more than RESULT_MAX_NODES entries (nodes, edges, runs and their inputs; default 10,000) answers root, asOf, provable, truncated, violations, sha256 and signature; its nodes, edges, runs and document are RESULT_TOO_LARGE (GET /api/v1/evidence/<artifactId> serves it whole).",
  fields: (t) => ({
    root: t.field({ type: EvidenceRootObject, description: "The figure the package is of.", resolve: (p) => p.root }),
    asOf: t.expose("asOf", { type: "DateTime", nullable: true, description: "As recorded by this instant: edges, inputs, pins and facets recorded later are left out (null: everything recorded)." }),
    businessDate: t.exposeString("businessDate", { nullable: true, description: "The business date the root version was selected by (YYYY-MM-DD; null: by recording time alone)." }),
    provable: t.exposeBoolean("provable", { description: "True only when `violations` is empty: every run of the closure is recorded, pinned and deterministic, and the closure is whole." }),
    violations: t.field({ type: [EvidenceViolationObject], description: "Each run at fault and why, by run id.", resolve: (p) => whole(p, "violations", p.violations) }),
    nodes: t.field({ type: [EvidenceNodeObject], description: "The root and everything it derives from, nearest first.", resolve: (p) => whole(p, "nodes", p.nodes) }),
    edges: t.field({ type: [EvidenceEdgeObject], description: "The edges among the nodes, each with its run: ARTIFACT before COLUMN, then by target and source.", resolve: (p) => whole(p, "edges", p.edges) }),
    runs: t.field({ type: [EvidenceRunObject], description: "Every run that produced an edge of the closure, by run id.", resolve: (p) => whole(p, "runs", p.runs) }),
    truncated: t.exposeBoolean("truncated", { description: "The closure was cut at its budget (500,000 walk rows): what lies beyond is unknown, and CLOSURE_TRUNCATED is among the violations." }),
    document: t.field({
      type: "JSON",
      description:
        "The package as one canonical JSON document (keys sorted): file it; verifyEvidence re-checks it against the store. The params of runs you have no clearance for are null there, marked `redacted: [\"params\"]`.",
      resolve: (p) => whole(p, "document", p.document),
    }),
    sha256: t.exposeString("sha256", { description: "sha256 (hex) of the document's canonical JSON text: what GET /api/v1/evidence/<artifactId> serves, byte for byte." }),
    signature: t.field({ type: DocumentSignatureObject, nullable: true, description: "The server's signature of the document (null when no signing key is configured).", resolve: (p) => p.signature }),
  }),
});

const EvidenceVerificationObject = builder.objectRef<EvidenceVerification>("EvidenceVerification").implement({
  description: "A filed evidence document checked against the package the store gives now, and its signature when one was given.",
  fields: (t) => ({
    valid: t.exposeBoolean("valid", { description: "The store still gives exactly this document." }),
    signature: t.field({ type: SignatureCheckObject, nullable: true, description: "The signature given (jws), checked offline, and that it signs this document; null when none was given.", resolve: (v) => v.signature }),
    documentSha256: t.exposeString("documentSha256", { description: "sha256 of the document given (canonical JSON)." }),
    currentSha256: t.exposeString("currentSha256", { nullable: true, description: "sha256 of the package recomputed now (null: its root is not stored)." }),
    differences: t.exposeStringList("differences", { description: "JSON pointers where the recomputed package differs (at most 50)." }),
  }),
});

builder.queryFields((t) => ({
  evidencePackage: t.field({
    type: EvidencePackageObject,
    description:
      "The evidence package of an artifact (`artifactId`; with `field`, of that column of it), or of a dataset's version (`namespace`, `name`, and `field` for one column of it: its newest version recorded by `asOf`; " +
      "with `businessDate`, the newest whose run's business date is that date). `asOf`: as recorded by that instant — edges, inputs, pins and facets recorded later are left out. One recursive SQL statement for the closure and the gate.",
    args: {
      artifactId: t.arg.id({ description: "The artifact (art_…; INVALID_ID when malformed, NOT_FOUND when unknown). Either it, or namespace and name (INVALID_ARGUMENT for both or neither)." }),
      namespace: t.arg.string({ description: "The dataset's namespace, with name: the package is of its newest version recorded by asOf (see businessDate)." }),
      name: t.arg.string({ description: "The dataset's name, with namespace (NOT_FOUND when no such dataset is recorded)." }),
      field: t.arg.string({ description: "One column of the artifact or dataset version (NOT_FOUND when it has no such column); without: the artifact as a whole." }),
      asOf: t.arg({ type: "DateTime", description: "As recorded by this instant: versions, edges, inputs, pins and facets recorded later are left out (by namespace and name, NOT_FOUND when no version was recorded by then). Without: everything recorded." }),
      businessDate: t.arg.string({ description: "YYYY-MM-DD: the newest version a run of that business date produced (its operation's business-date parameter, or OpenLineage's nominalTime facet). With namespace and name." }),
    },
    resolve: async (_root, args, ctx) => {
      const byName = args.namespace != null || args.name != null;
      if ((args.artifactId != null) === byName) throw new InvalidArgumentError(args.artifactId != null ? "namespace" : "artifactId", "give either artifactId, or namespace and name (each with a field, or none)");
      if (args.artifactId != null) {
        if (args.businessDate != null) throw new InvalidArgumentError("businessDate", "selects a version of a dataset: give it with namespace, name and field, not with artifactId");
        return viewedPackage(ctx, { artifactId: artifactIdArg("artifactId", args.artifactId), field: args.field, asOf: args.asOf });
      }
      for (const name of ["namespace", "name"] as const) if (args[name] == null) throw new InvalidArgumentError(name, "namespace and name go together");
      return viewedPackage(ctx, { namespace: args.namespace!, name: args.name!, field: args.field, asOf: args.asOf, businessDate: args.businessDate });
    },
  }),
  verifyEvidence: t.field({
    type: EvidenceVerificationObject,
    description:
      "Recomputes a filed evidence document's package from the store (same root, same asOf) and compares: valid when the store gives exactly the same document as you may see it " +
      "(the params of runs you have no clearance for left out, as evidencePackage leaves them out). With `jws` (the package's signature), also checks the signature offline and that it signs the document; `document` may then be left out (the JWS carries it).",
    args: { document: t.arg({ type: "JSON", description: "The filed document, as EvidencePackage.document gave it. May be left out when jws is given; INVALID_ARGUMENT when neither is, or when it is not an evidence document of this server's format." }), jws: t.arg.string({ description: "The document's signature: EvidencePackage.signature.jws, or GET /api/v1/evidence/<id>?format=jws." }) },
    resolve: (_root, args, ctx) =>
      ctx.services.compliance.evidence.verify(args.document, args.jws, {
        hiddenRuns: (runIds) => hiddenRuns(ctx, runIds),
        // Recomputing the package and comparing documents of tens of thousands of entries: off the event loop.
        check: (checkArgs) => heavyRead(ctx, "verifyEvidence", checkArgs),
      }),
  }),
  verifySignature: t.field({
    type: SignatureCheckObject,
    description: "Checks a signature the server made (an evidence package's, an erasure plan's) against its signing keys, current and previous: offline, no stored record is consulted.",
    args: { jws: t.arg.string({ required: true, description: "The signature (compact JWS): a DocumentSignature.jws. One that cannot be read gives valid false with the reason, not an error." }) },
    resolve: (_root, args, ctx) => ctx.services.compliance.signer.verify(args.jws),
  }),
}));

// ——— Erasure: catalogue facts, plans, their execution ———

const AggregateFactsObject = builder.objectRef<NonNullable<CatalogueFactRecord["aggregate"]>>("AggregateFacts").implement({
  description: "The numbers an aggregate's non-personal argument rests on: AGGREGATE_OK needs minGroupSize ≥ the plan's kThreshold and no unique quasi-identifier combination.",
  fields: (t) => ({
    minGroupSize: t.exposeInt("minGroupSize", { description: "The smallest group any row of the aggregate stands for." }),
    uniqueQuasiIdentifierCombinations: t.exposeInt("uniqueQuasiIdentifierCombinations", { description: "How many combinations of quasi-identifier values occur once (0: none is unique)." }),
    quasiIdentifiers: t.exposeStringList("quasiIdentifiers", { description: "The columns taken as quasi-identifiers." }),
  }),
});

const CatalogueTargetObject = builder.objectRef<CatalogueTarget>("CatalogueTarget").implement({
  description: "An artifact, or a dataset (every version, present and future: artifactId null).",
  fields: (t) => ({
    artifactId: t.id({ nullable: true, description: "The artifact (null: the facts are about a dataset).", resolve: (c) => (c.kind === "ARTIFACT" ? c.artifactId : null) }),
    artifact: t.field({ type: ArtifactRef, nullable: true, description: "The artifact (null: the facts are about a dataset).", resolve: (c) => (c.kind === "ARTIFACT" ? c.artifactId : null) }),
    namespace: t.string({ nullable: true, description: "The dataset's namespace (null: the facts are about one artifact).", resolve: (c) => (c.kind === "DATASET" ? c.namespace : null) }),
    name: t.string({ nullable: true, description: "The dataset's name (null: the facts are about one artifact).", resolve: (c) => (c.kind === "DATASET" ? c.name : null) }),
  }),
});

const CatalogueFactsObject = builder.objectRef<CatalogueFactRecord>("CatalogueFacts").implement({
  description: "What the catalogue knows about an artifact or a dataset, for erasure plans (the newest facts of a target apply; an artifact's own over its dataset's).",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The record's id: a later record has a higher one (ErasureAction.factsId names it)." }),
    target: t.field({ type: CatalogueTargetObject, description: "What the facts are about.", resolve: (f) => f.target }),
    immutable: t.exposeBoolean("immutable", { description: "WORM, tape, 90-day backups: rewriting is impossible." }),
    objectLock: t.exposeBoolean("objectLock", { description: "Object lock (S3 and the like): erasure treats it as immutable." }),
    rebuildableFromSource: t.exposeBoolean("rebuildableFromSource", { description: "It can be deleted and re-materialised from its sources." }),
    aggregate: t.field({ type: AggregateFactsObject, nullable: true, description: "Its numbers as an aggregate (null: not an aggregate).", resolve: (f) => f.aggregate }),
    holdsSubjectData: t.exposeBoolean("holdsSubjectData", { description: "It holds data subjects' records: every erasure plan starts from it." }),
    note: t.exposeString("note", { nullable: true, description: "What it is (an embedding index, model weights, a feature store, …); null: not given." }),
    reason: t.exposeString("reason", { nullable: true, description: "Why the facts were recorded (null: not given)." }),
    recordedBy: t.exposeString("recordedBy", { description: "Who recorded them: the token's name, or 'open mode'." }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When they were recorded." }),
  }),
});

const factsLoader = createContextCache((ctx: GraphQLContext) => new DataLoader<string, CatalogueFactRecord | null>((ids) => ctx.services.compliance.catalogue.factsOf(ids)));

builder.objectFields(ArtifactRef, (t) => ({
  catalogueFacts: t.field({
    type: CatalogueFactsObject,
    nullable: true,
    description: "The catalogue facts that apply to it (its own newest, else its dataset's), which erasure plans decide by.",
    resolve: (a, _args, ctx) => factsLoader(ctx).load(a.id),
  }),
}));

const AggregateFactsInput = builder.inputType("AggregateFactsInput", {
  description: "The numbers an aggregate's non-personal argument rests on.",
  fields: (t) => ({
    minGroupSize: t.int({ required: true, description: "The smallest group any row of the aggregate stands for: at least 1 (INVALID_ARGUMENT otherwise)." }),
    uniqueQuasiIdentifierCombinations: t.int({ required: true, description: "How many combinations of quasi-identifier values occur once: at least 0 (0: none is unique)." }),
    quasiIdentifiers: t.stringList({ defaultValue: [], description: "The columns taken as quasi-identifiers." }),
  }),
});

const CatalogueTargetInput = builder.inputType("CatalogueTargetInput", {
  description: "An artifact (artifactId), or a dataset with every version of it, present and future (namespace and name).",
  fields: (t) => ({
    artifactId: t.id({ description: "The artifact (art_…; INVALID_ID when malformed, NOT_FOUND when unknown). Not with namespace and name (INVALID_ARGUMENT)." }),
    namespace: t.string({ description: "The dataset's namespace, with name; the dataset need not be recorded yet." }),
    name: t.string({ description: "The dataset's name, with namespace." }),
  }),
});

const RecordCatalogueFactsInput = builder.inputType("RecordCatalogueFactsInput", {
  description: "The facts about one artifact or dataset, recorded whole: the newest record of a target applies, so a fact left out is false (or null) from then on, not carried over.",
  fields: (t) => ({
    target: t.field({ type: CatalogueTargetInput, required: true, description: "What the facts are about." }),
    immutable: t.boolean({ defaultValue: false, description: "WORM, tape, 90-day backups: rewriting is impossible (erasure: CRYPTO_SHRED)." }),
    objectLock: t.boolean({ defaultValue: false, description: "Object lock (S3 and the like): erasure treats it as immutable (CRYPTO_SHRED)." }),
    rebuildableFromSource: t.boolean({ defaultValue: false, description: "It can be deleted and re-materialised from its sources (erasure: REBUILD, unless immutable)." }),
    aggregate: t.field({ type: AggregateFactsInput, description: "Set when it is an aggregate: the numbers its non-personal argument rests on." }),
    holdsSubjectData: t.boolean({ defaultValue: false, description: "It holds data subjects' records: every erasure plan starts from it." }),
    note: t.string({ description: "What it is: an embedding index, model weights, a feature store, …" }),
    reason: t.string({ description: "Why: recorded with the facts (at most 2,000 characters)." }),
  }),
});

const ErasureActionEnum = builder.enumType("ErasureActionKind", {
  description: "What an erasure plan says to do with an artifact, decided by its catalogue facts.",
  values: {
    CRYPTO_SHRED: { description: "An immutable store (WORM, object lock, tape, backups): destroy the subject's data key." },
    REBUILD: { description: "Rebuildable from source: delete and re-materialise." },
    AGGREGATE_OK: { description: "An aggregate whose smallest group is ≥ k with no unique quasi-identifier combination: argued non-personal, with the numbers." },
    ESCALATE: { description: "Anything else (embeddings, model weights, feature stores, nothing catalogued): decide at DPO level." },
    DELETE_RECORDS: { description: "An artifact holding the subject's records (a root): delete them there." },
  },
});

const ErasureRootHoldsEnum = builder.enumType("ErasureRootReason", {
  description: "Why an artifact is a root of an erasure plan: how it is known to hold the subject.",
  values: {
    DECLARED_SUBJECT: { description: "A recording declared the subject on it (subjectKeys, or the provgraph_dataSubjects facet)." },
    HOLDS_SUBJECT_DATA: { description: "Its catalogue facts say it holds subject data." },
  },
});

const ErasureRootObject = builder.objectRef<ErasureRoot>("ErasureRoot").implement({
  description: "An artifact that holds the subject: where the forward closure starts.",
  fields: (t) => ({
    artifactId: t.exposeID("artifactId", { description: "The artifact holding the subject." }),
    artifact: t.field({ type: ArtifactRef, description: "The artifact holding the subject.", resolve: (r) => r.artifactId }),
    holds: t.field({ type: [ErasureRootHoldsEnum], description: "How it is known to hold the subject: DECLARED_SUBJECT, HOLDS_SUBJECT_DATA, or both.", resolve: (r) => r.holds }),
    action: t.field({ type: ErasureActionEnum, description: "DELETE_RECORDS, or CRYPTO_SHRED when its catalogue facts say immutable or object lock.", resolve: (r) => r.action }),
    argument: t.exposeString("argument", { description: "Why that action (recorded with the plan)." }),
    slaDays: t.exposeInt("slaDays", { description: "Days from the plan to the action's due date: 30." }),
    dueBy: t.field({ type: "DateTime", description: "When the action is due: the plan's createdAt plus slaDays.", resolve: (r) => new Date(r.dueBy) }),
  }),
});

const ErasureActionObject = builder.objectRef<ErasureAction>("ErasureAction").implement({
  description: "What to do with one artifact derived from the subject's data.",
  fields: (t) => ({
    artifactId: t.exposeID("artifactId", { description: "The derived artifact." }),
    artifact: t.field({ type: ArtifactRef, description: "The derived artifact.", resolve: (a) => a.artifactId }),
    depth: t.exposeInt("depth", { description: "Hops from the nearest root." }),
    action: t.field({ type: ErasureActionEnum, description: "What to do, decided by its catalogue facts in this order: immutable or object lock, rebuildable from source, aggregate, anything else.", resolve: (a) => a.action }),
    argument: t.exposeString("argument", { description: "Why, with the numbers (recorded with the plan)." }),
    kThreshold: t.exposeInt("kThreshold", { description: "The plan's k: the smallest group an aggregate may have to be argued non-personal." }),
    minGroupSize: t.exposeInt("minGroupSize", { nullable: true, description: "Its aggregate's smallest group, from its catalogue facts (null: not catalogued as an aggregate)." }),
    uniqueQuasiIdentifierCombinations: t.exposeInt("uniqueQuasiIdentifierCombinations", { nullable: true, description: "Its aggregate's unique quasi-identifier combinations, from its catalogue facts (null: not catalogued as an aggregate)." }),
    factsId: t.exposeInt("factsId", { nullable: true, description: "The catalogue facts it was decided on (null: none known)." }),
    slaDays: t.exposeInt("slaDays", { description: "Days from the plan to the action's due date: 30." }),
    dueBy: t.field({ type: "DateTime", description: "When the action is due: the plan's createdAt plus slaDays.", resolve: (a) => new Date(a.dueBy) }),
  }),
});

const TombstoneObject = builder.objectRef<ErasurePlanRecord["tombstone"]>("ErasureTombstone").implement({
  description: "The last step: the subject key's keyed hash on the suppression list, so no later sync brings the subject back.",
  fields: (t) => ({
    action: t.exposeString("action", { description: "INSERT_TOMBSTONE." }),
    list: t.exposeString("list", { description: "The list it goes on: suppression_list." }),
    keyHash: t.exposeString("keyHash", { description: "hmac-sha256:<hex> of the subject key under the server's secret (the key itself is never stored)." }),
  }),
});

const ErasureStatusEnum = builder.enumType("ErasurePlanStatus", { description: "Whether an erasure plan has been executed.", values: { PLANNED: { description: "Recorded, not executed yet: executeErasure has not inserted its tombstone." }, EXECUTED: { description: "executeErasure recorded it and inserted the tombstone." } } });

const ErasurePlanObject = builder.objectRef<ErasurePlanRecord>("ErasurePlan").implement({
  description: "Seed \"GDPR erasure\": the forward closure from every artifact holding a subject, one action per derived artifact with its SLA, and the tombstone.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "The plan's id (erp_…)." }),
    keyHash: t.exposeString("keyHash", { description: "hmac-sha256:<hex> of the normalised subject key under the server's secret (the key itself is never stored)." }),
    kThreshold: t.exposeInt("kThreshold", { description: "The k the plan was made with: the smallest group an aggregate may have to be argued non-personal." }),
    createdAt: t.field({ type: "DateTime", description: "When the plan was made; its actions are due slaDays after.", resolve: (p) => new Date(p.createdAt) }),
    createdBy: t.exposeString("createdBy", { description: "Who made the plan: the token's name, or 'open mode'." }),
    status: t.field({ type: ErasureStatusEnum, description: "PLANNED, or EXECUTED once executeErasure has recorded it.", resolve: (p) => (p.execution ? "EXECUTED" : "PLANNED") }),
    executedAt: t.field({ type: "DateTime", nullable: true, description: "When it was executed (null: not yet).", resolve: (p) => p.execution?.executedAt ?? null }),
    executedBy: t.string({ nullable: true, description: "Who executed it: the token's name, or 'open mode' (null: not yet).", resolve: (p) => p.execution?.executedBy ?? null }),
    roots: t.field({ type: [ErasureRootObject], description: "Every artifact holding the subject, by artifact id: where the forward closure starts.", resolve: (p) => p.roots }),
    actions: t.field({ type: [ErasureActionObject], description: "One per derived artifact, nearest first.", resolve: (p) => p.actions }),
    tombstone: t.field({ type: TombstoneObject, description: "The last step: the subject key's hash on the suppression list (inserted when the plan is executed).", resolve: (p) => p.tombstone }),
    document: t.field({ type: "JSON", description: "The plan as recorded (canonical JSON).", resolve: (p) => ({ id: p.id, keyHash: p.keyHash, kThreshold: p.kThreshold, createdAt: p.createdAt, roots: p.roots, actions: p.actions, tombstone: p.tombstone }) }),
    signature: t.field({ type: DocumentSignatureObject, nullable: true, description: "The server's signature of the plan document as recorded (its JWS payload); null when no signing key is configured.", resolve: (p) => p.signature }),
  }),
});

const actorOf = (ctx: GraphQLContext) => ({ name: ctx.principal.name, tokenId: ctx.principal.tokenId });
/** The admin action's audit entry commits with it; only ids go there (never a subject key). */
const audited =
  (ctx: GraphQLContext, ...targets: string[]) =>
  (tx: DbTx) =>
    ctx.auditInTransaction?.(tx, ...targets) ?? Promise.resolve();

builder.mutationFields((t) => ({
  recordCatalogueFacts: t.field({
    type: CatalogueFactsObject,
    description: "Records what the catalogue knows about an artifact or a dataset (every version): immutable / object lock, rebuildable from source, aggregate numbers, holds subject data. The newest facts of a target apply. Needs the admin scope.",
    args: { input: t.arg({ type: RecordCatalogueFactsInput, required: true, description: "The target and its facts, with the reason." }) },
    resolve: async (_root, { input }, ctx) => {
      const target = await catalogueTargetOf(ctx, input.target);
      const facts = {
        immutable: input.immutable ?? false,
        objectLock: input.objectLock ?? false,
        rebuildableFromSource: input.rebuildableFromSource ?? false,
        aggregate: input.aggregate ? { minGroupSize: input.aggregate.minGroupSize, uniqueQuasiIdentifierCombinations: input.aggregate.uniqueQuasiIdentifierCombinations, quasiIdentifiers: input.aggregate.quasiIdentifiers ?? [] } : null,
        holdsSubjectData: input.holdsSubjectData ?? false,
        note: input.note ?? null,
      };
      return ctx.services.compliance.catalogue.record(target, facts, input.reason ?? null, actorOf(ctx), audited(ctx, ...(target.kind === "ARTIFACT" ? [target.artifactId] : [])));
    },
  }),
  erasurePlan: t.field({
    type: ErasurePlanObject,
    description:
      "Plans the erasure of a data subject and records the plan: the forward closure along wasDerivedFrom and column edges (DIRECT and INDIRECT) from every artifact holding the subject, one action per derived artifact (CRYPTO_SHRED, REBUILD, AGGREGATE_OK, ESCALATE) with its 30-day SLA, and the tombstone step. " +
      "The subject key is hashed on arrival (HMAC with the server's secret) and never stored or logged. Needs the admin scope.",
    args: {
      subjectKey: t.arg.string({ required: true, extensions: SENSITIVE, description: "The data subject's key, normalised and hashed on arrival: not blank, at most 1,024 characters (INVALID_ARGUMENT). ERASURE_NOT_CONFIGURED without PROVGRAPH_ERASURE_SECRET." }),
      kThreshold: t.arg.int({ defaultValue: 50, extensions: SENSITIVE, description: "The smallest group an aggregate may have to be argued non-personal." }),
    },
    resolve: (_root, args, ctx) => ctx.services.compliance.erasure.plan(args.subjectKey, args.kThreshold ?? 50, actorOf(ctx)),
  }),
  executeErasure: t.field({
    type: ErasurePlanObject,
    description: "Records the plan as executed and inserts its tombstone (the subject key's keyed hash) on the suppression list: recording or ingesting that subject is refused from now on (SUBJECT_SUPPRESSED). Needs the admin scope.",
    args: { planId: t.arg.id({ required: true, extensions: SENSITIVE, description: "The plan (erp_…; INVALID_ID when malformed, NOT_FOUND when unknown). ERASURE_ALREADY_EXECUTED when executed already." }) },
    resolve: (_root, args, ctx) => ctx.services.compliance.erasure.execute(String(args.planId), actorOf(ctx), audited(ctx, String(args.planId))),
  }),
}));

builder.queryFields((t) => ({
  erasurePlans: t.connection({
    type: ErasurePlanObject,
    authScopes: { admin: true },
    description: "Erasure plans, newest first, executed or not. Needs the admin scope.",
    resolve: (_root, args, ctx) =>
      resolveKeysetConnection<ErasurePlanRecord, string>(args, { connection: "erasurePlans", keyOf: (p) => p.id, parseKey: (key) => (isIdOfKind(key, "erasurePlan") ? key : undefined) }, (page) =>
        ctx.services.compliance.erasure.list(page),
      ),
  }),
  erasurePlanById: t.field({
    type: ErasurePlanObject,
    authScopes: { admin: true },
    description: "One erasure plan (erp_…). Needs the admin scope.",
    args: { id: t.arg.id({ required: true, description: "The plan's id (erp_…; INVALID_ID when malformed, NOT_FOUND when unknown)." }) },
    resolve: (_root, args, ctx) => ctx.services.compliance.erasure.get(String(args.id)),
  }),
}));

async function catalogueTargetOf(ctx: GraphQLContext, input: { artifactId?: string | number | null; namespace?: string | null; name?: string | null }): Promise<CatalogueTarget> {
  const byId = input.artifactId != null;
  if (byId === (input.namespace != null || input.name != null)) throw new InvalidArgumentError(byId ? "namespace" : "artifactId", "name either an artifact (artifactId) or a dataset (namespace and name)");
  if (byId) return { kind: "ARTIFACT", artifactId: (await ctx.services.compliance.targets.artifact(String(input.artifactId))).artifactId };
  if (input.namespace == null || input.name == null) throw new InvalidArgumentError(input.namespace == null ? "namespace" : "name", "namespace and name go together");
  return { kind: "DATASET", namespace: input.namespace, name: input.name };
}
