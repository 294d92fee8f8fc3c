import { EVIDENCE_RULES, type EvidenceEdge, type EvidenceInput, type EvidenceNode, type EvidencePackage, type EvidenceRun, type EvidenceVerification, type EvidenceViolation } from "../services/compliance";
import { InvalidArgumentError } from "../services/errors";
import { ArtifactRef, DatasetRefObject } from "./artifact";
import { builder } from "./builder";
import { ExecutionRef, ReplayPinsObject } from "./execution";
import { artifactIdArg } from "./id-args";

/**
 * Compliance on the GraphQL side (translation only): evidence packages and their verification,
 * erasure catalogue facts, plans and their execution.
 */

const EvidenceRuleEnum = builder.enumType("EvidenceRule", {
  description: "Why a figure is not provable (the acceptance gate of an evidence package).",
  values: {
    MISSING_INPUT_VERSION: { description: "The run used an input without a version: an unversioned dataset, or an OpenLineage input resolved to the newest known version (no version facet); or it read nothing provgraph holds and names no input versions." },
    MISSING_IMAGE_DIGEST: { description: "The run names no image digest (pins.imageDigest): the same code on another image may compute another number." },
    NON_DETERMINISTIC: { description: "The run is flagged non-deterministic (pins.deterministic false)." },
    DETERMINISM_UNKNOWN: { description: "The run does not say whether it is deterministic (pins.deterministic null): unknown counts as not provable." },
    UNRECORDED_RUN: { description: "An edge of the closure names a run provgraph has no record of: nothing pins it." },
    CLOSURE_TRUNCATED: { description: "The closure was cut at its budget: what lies beyond is unknown." },
  } satisfies Record<(typeof EVIDENCE_RULES)[number], unknown>,
});

const EvidenceLayerEnum = builder.enumType("EvidenceEdgeLayer", {
  values: { ARTIFACT: { description: "wasDerivedFrom (kind: its edge kind)." }, COLUMN: { description: "A column edge (kind: DIRECT or INDIRECT; targetField null = dataset-wide)." } },
});

const EvidenceNodeObject = builder.objectRef<EvidenceNode>("EvidenceNode").implement({
  description: "An artifact, or a column of a dataset version, in the backward closure.",
  fields: (t) => ({
    artifactId: t.exposeID("artifactId"),
    artifact: t.field({ type: ArtifactRef, resolve: (n) => n.artifactId }),
    field: t.exposeString("field", { nullable: true, description: "A column of the artifact; null = the artifact itself." }),
    depth: t.exposeInt("depth", { description: "Fewest hops from the root." }),
    opaque: t.exposeBoolean("opaque", { description: "A column no column edge reaches (its run reported no column lineage): the closure goes on from its whole version." }),
  }),
});

const EvidenceEdgeObject = builder.objectRef<EvidenceEdge>("EvidenceEdge").implement({
  fields: (t) => ({
    layer: t.field({ type: EvidenceLayerEnum, resolve: (e) => e.layer }),
    sourceId: t.exposeID("sourceId"),
    sourceField: t.exposeString("sourceField", { nullable: true }),
    targetId: t.exposeID("targetId"),
    targetField: t.exposeString("targetField", { nullable: true }),
    runId: t.exposeID("runId"),
    kind: t.exposeString("kind", { description: "INDEPENDENT, CO_INPUT, … (ARTIFACT); DIRECT or INDIRECT (COLUMN)." }),
    subtype: t.exposeString("subtype", { nullable: true }),
  }),
});

const EvidenceInputObject = builder.objectRef<EvidenceInput>("EvidenceInput").implement({
  fields: (t) => ({
    artifactId: t.exposeID("artifactId"),
    artifact: t.field({ type: ArtifactRef, resolve: (i) => i.artifactId }),
    role: t.exposeString("role"),
    dataset: t.field({ type: DatasetRefObject, nullable: true, resolve: (i) => i.dataset }),
    pinned: t.exposeBoolean("pinned", { description: "Its version is pinned: a content-addressed artifact, or a dataset version the event named — not the newest known, not unversioned." }),
    resolvedBy: t.exposeString("resolvedBy", { nullable: true, description: "OpenLineage: VERSION_FACET, LATEST_KNOWN or UNVERSIONED." }),
  }),
});

const EvidenceRunObject = builder.objectRef<EvidenceRun>("EvidenceRun").implement({
  description: "A run that produced an edge of the closure, with its four pins.",
  fields: (t) => ({
    runId: t.exposeID("runId"),
    execution: t.field({ type: ExecutionRef, nullable: true, resolve: (r) => (r.operation ? r.runId : null) }),
    params: t.expose("params", { type: "JSON", nullable: true }),
    pins: t.field({ type: ReplayPinsObject, resolve: (r) => r.pins }),
    inputs: t.field({ type: [EvidenceInputObject], resolve: (r) => r.inputs }),
    produced: t.exposeIDList("produced", { description: "What it produced inside the closure." }),
    violations: t.field({ type: [EvidenceRuleEnum], resolve: (r) => r.violations }),
  }),
});

const EvidenceViolationObject = builder.objectRef<EvidenceViolation>("EvidenceViolation").implement({
  fields: (t) => ({
    rule: t.field({ type: EvidenceRuleEnum, resolve: (v) => v.rule }),
    runId: t.exposeID("runId", { nullable: true, description: "The run at fault (null for CLOSURE_TRUNCATED)." }),
    execution: t.field({ type: ExecutionRef, nullable: true, resolve: (v) => (v.rule === "UNRECORDED_RUN" ? null : v.runId) }),
    artifactIds: t.exposeIDList("artifactIds", { description: "What the run produced inside the closure: the nodes it stands behind." }),
    inputs: t.exposeIDList("inputs", { description: "MISSING_INPUT_VERSION: its inputs without a version." }),
  }),
});

const EvidenceRootObject = builder.objectRef<EvidencePackage["root"]>("EvidenceRoot").implement({
  fields: (t) => ({
    artifactId: t.exposeID("artifactId"),
    artifact: t.field({ type: ArtifactRef, resolve: (r) => r.artifactId }),
    field: t.exposeString("field", { nullable: true }),
    dataset: t.field({ type: DatasetRefObject, nullable: true, resolve: (r) => r.dataset }),
  }),
});

const EvidencePackageObject = builder.objectRef<EvidencePackage>("EvidencePackage").implement({
  description:
    "Seed \"The evidence package\": the backward closure of a figure down to its raw sources, every run in it with its four pins, and the acceptance gate — " +
    "provable only when no run lacks an input version or an image digest or is (or may be) non-deterministic. `document` is all of it as one canonical JSON document, `sha256` its digest.",
  fields: (t) => ({
    root: t.field({ type: EvidenceRootObject, resolve: (p) => p.root }),
    asOf: t.expose("asOf", { type: "DateTime", nullable: true, description: "Edges recorded later are left out (null: everything recorded)." }),
    provable: t.exposeBoolean("provable"),
    violations: t.field({ type: [EvidenceViolationObject], description: "Each run at fault and why, by run id.", resolve: (p) => p.violations }),
    nodes: t.field({ type: [EvidenceNodeObject], description: "The root and everything it derives from, nearest first.", resolve: (p) => p.nodes }),
    edges: t.field({ type: [EvidenceEdgeObject], resolve: (p) => p.edges }),
    runs: t.field({ type: [EvidenceRunObject], description: "Every run that produced an edge of the closure, by run id.", resolve: (p) => p.runs }),
    truncated: t.exposeBoolean("truncated"),
    document: t.field({ type: "JSON", description: "The package as one canonical JSON document (keys sorted): file it; verifyEvidence re-checks it against the store.", resolve: (p) => p.document }),
    sha256: t.exposeString("sha256", { description: "sha256 (hex) of the document's canonical JSON text: what GET /api/v1/evidence/<artifactId> serves, byte for byte." }),
  }),
});

const EvidenceVerificationObject = builder.objectRef<EvidenceVerification>("EvidenceVerification").implement({
  fields: (t) => ({
    valid: t.exposeBoolean("valid", { description: "The store still gives exactly this document." }),
    documentSha256: t.exposeString("documentSha256", { description: "sha256 of the document given (canonical JSON)." }),
    currentSha256: t.exposeString("currentSha256", { nullable: true, description: "sha256 of the package recomputed now (null: its root is not stored)." }),
    differences: t.exposeStringList("differences", { description: "JSON pointers where the recomputed package differs (at most 50)." }),
  }),
});

builder.queryFields((t) => ({
  evidencePackage: t.field({
    type: EvidencePackageObject,
    description:
      "The evidence package of an artifact (`artifactId`; with `field`, of that column of it), or of one column of a dataset (`namespace`, `name`, `field`: its newest version recorded by `asOf`). " +
      "`asOf` also leaves out edges recorded later. One recursive SQL statement for the closure and the gate.",
    args: {
      artifactId: t.arg.id(),
      namespace: t.arg.string(),
      name: t.arg.string(),
      field: t.arg.string(),
      asOf: t.arg({ type: "DateTime" }),
    },
    resolve: (_root, args, ctx) => {
      const byName = args.namespace != null || args.name != null;
      if ((args.artifactId != null) === byName) throw new InvalidArgumentError(args.artifactId != null ? "namespace" : "artifactId", "give either artifactId (and a field of it, or none), or namespace, name and field");
      if (args.artifactId != null) return ctx.services.compliance.evidence.package({ artifactId: artifactIdArg("artifactId", args.artifactId), field: args.field, asOf: args.asOf });
      for (const name of ["namespace", "name", "field"] as const) if (args[name] == null) throw new InvalidArgumentError(name, "namespace, name and field go together");
      return ctx.services.compliance.evidence.package({ namespace: args.namespace!, name: args.name!, field: args.field!, asOf: args.asOf });
    },
  }),
  verifyEvidence: t.field({
    type: EvidenceVerificationObject,
    description: "Recomputes a filed evidence document's package from the store (same root, same asOf) and compares: valid when the store gives exactly the same document.",
    args: { document: t.arg({ type: "JSON", required: true }) },
    resolve: (_root, args, ctx) => ctx.services.compliance.evidence.verify(args.document),
  }),
}));
