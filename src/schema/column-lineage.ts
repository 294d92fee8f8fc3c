import { createContextCache } from "@pothos/core";
import DataLoader from "dataloader";
import type { ArtifactId, RunId } from "../services/ids";
import {
  COLUMN_EDGE_TYPES,
  type ColumnClosureNode,
  type ColumnEdgeRecord,
  type ColumnProvJsonDocument,
  type ColumnRef,
  type ColumnView,
  columnKey,
  COVERAGE_THRESHOLD,
  type DatasetColumnLineage,
  DEFAULT_COLUMN_CLOSURE_NODES,
  DEFAULT_COVERAGE_ITEMS,
  MAX_COLUMN_CLOSURE_NODES,
  type LineageCoverage,
  MAX_COVERAGE_ITEMS,
  type OpaqueNode,
  type UnresolvedColumn,
} from "../services/columns";
import { formatCount } from "../limits";
import { ArtifactRef } from "./artifact";
import { builder } from "./builder";
import { RedactionObject } from "./redactions";
import type { GraphQLContext } from "./context";
import { ExecutionRef } from "./execution";
import { heavyRead } from "./heavy-read";
import { LineageDirectionEnum } from "./lineage";
import { selectedFieldNames } from "./selection";
import { columnEdgeSubject, columnSubject } from "./policy-subjects";
import { redactedFields, redactionsOf, withheld } from "../auth/pothos";

/**
 * Column-level lineage: column edges (input dataset version + field → output dataset version +
 * field) with their transformation, the columns of dataset versions with their one-hop edges,
 * transitive column lineage (columnLineage, one recursive SQL statement) with its PROV-JSON, and
 * lineage coverage.
 */

export const ColumnEdgeTypeEnum = builder.enumType("ColumnEdgeType", {
  description: "Whether a column edge carries values or only a dependency.",
  values: {
    DIRECT: { description: "The input's values reached the output (a disclosure)." },
    INDIRECT: { description: "The input shaped the output (filter, join, grouping, sort, window, condition) without its values reaching it: a dependency, not a disclosure." },
  } satisfies Record<(typeof COLUMN_EDGE_TYPES)[number], unknown>,
});

const ColumnRefObject = builder.objectRef<ColumnRef>("ColumnRef").implement({
  description: "One column of one dataset version; `field` null = the dataset version as a whole (the target of a dataset-wide edge).",
  fields: (t) => ({
    artifact: t.field({ type: ArtifactRef, description: "The dataset version.", resolve: (ref) => ref.artifactId }),
    artifactId: t.id({ description: "The dataset version's id (art_…).", resolve: (ref) => ref.artifactId }),
    field: t.exposeString("field", { nullable: true, description: "The column's field (nested fields as dotted paths); null for the dataset version as a whole." }),
  }),
});

export const ColumnEdgeObject = builder.objectRef<ColumnEdgeRecord>("ColumnEdge").implement({
  description: "(input dataset version, field) → (output dataset version, field), as one run reported it (OpenLineage columnLineage facet).",
  fields: (t) => ({
    source: t.field({ type: ColumnRefObject, description: "The input column; its field is never null.", resolve: (e) => ({ artifactId: e.sourceId, field: e.sourceField }) }),
    target: t.field({ type: ColumnRefObject, description: "field null: a dataset-wide dependency, shaping every column of the target.", resolve: (e) => ({ artifactId: e.targetId, field: e.targetField }) }),
    type: t.field({ type: ColumnEdgeTypeEnum, description: "DIRECT (the values reached the target) or INDIRECT (the source only shaped it).", resolve: (e) => e.type }),
    subtype: t.exposeString("subtype", { nullable: true, description: "IDENTITY, TRANSFORMATION, AGGREGATION, FILTER, JOIN, GROUP_BY, SORT, WINDOW, CONDITIONAL, … as reported." }),
    description: t.exposeString("description", {
      nullable: true,
      redactBy: (e) => columnEdgeSubject(e),
      description: "The transformation as reported (often the expression itself). Null without the clearance for each policy tag of the column it reads and the column it writes (see `redacted`).",
    }),
    masking: t.exposeBoolean("masking", { description: "The transformation masks the input (e.g. a hash)." }),
    datasetWide: t.boolean({ description: "From the facet's `dataset` list: the input shapes the whole output.", resolve: (e) => e.targetField === null }),
    runId: t.id({ description: "The run that reported the edge.", resolve: (e) => e.runId }),
    run: t.field({ type: ExecutionRef, description: "The execution that reported the edge.", resolve: (e) => e.runId }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the edge was recorded." }),
    redacted: t.stringList({ description: "The fields of this edge redacted for you (description).", resolve: (e, args, ctx) => redactedFields("ColumnEdge")(e, args, ctx) }),
    redactions: t.field({ type: [RedactionObject], description: "What `redacted` lists, each field with why: the tags that withhold it and, for each, the clearance or the purpose you lack.", resolve: (e, args, ctx) => redactionsOf("ColumnEdge")(e, args, ctx) }),
  }),
});

// Per-request loaders: a query's statement count does not grow with the columns it reaches.
const columnsLoader = createContextCache((ctx: GraphQLContext) => new DataLoader<ArtifactId, ColumnView[]>((ids) => ctx.services.columns.columns.columnsOf(ids)));
const upstreamLoader = createContextCache(
  (ctx: GraphQLContext) => new DataLoader<ColumnRef, ColumnEdgeRecord[], string>((refs) => ctx.services.columns.columns.upstreamOf(refs), { cacheKeyFn: columnKey }),
);
const downstreamLoader = createContextCache(
  (ctx: GraphQLContext) => new DataLoader<ColumnRef, ColumnEdgeRecord[], string>((refs) => ctx.services.columns.columns.downstreamOf(refs), { cacheKeyFn: columnKey }),
);
const runEdgesLoader = createContextCache((ctx: GraphQLContext) => new DataLoader<RunId, ColumnEdgeRecord[]>((runIds) => ctx.services.columns.columns.edgesOfRuns(runIds)));

export const ColumnObject = builder.objectRef<ColumnView>("Column").implement({
  description: "A column of a dataset version: from its schema facet, or named only by column edges.",
  fields: (t) => ({
    field: t.exposeString("field", { description: "Nested fields as dotted paths (address.city)." }),
    position: t.exposeInt("position", { nullable: true, description: "0-based place in the schema; null for a field only edges name." }),
    type: t.exposeString("type", { nullable: true, description: "Its data type as its schema gave it; null when the schema gave none, or for a field only edges name." }),
    description: t.exposeString("description", {
      nullable: true,
      // Policy tags guard it (src/schema/policy.ts): null without the clearance for each of the column's tags.
      redactBy: (c) => columnSubject(c),
      description: "As its schema described it. Null without the clearance for each of the column's policy tags (see `redacted`).",
    }),
    artifact: t.field({ type: ArtifactRef, description: "The dataset version it belongs to.", resolve: (c) => c.artifactId }),
    upstream: t.field({
      type: [ColumnEdgeObject],
      description: "One hop upstream: the edges into this column, and the dataset-wide edges into its version.",
      resolve: (c, _args, ctx) => upstreamLoader(ctx).load({ artifactId: c.artifactId, field: c.field }),
    }),
    downstream: t.field({ type: [ColumnEdgeObject], description: "One hop downstream: the edges out of this column.", resolve: (c, _args, ctx) => downstreamLoader(ctx).load({ artifactId: c.artifactId, field: c.field }) }),
  }),
});

builder.objectFields(ArtifactRef, (t) => ({
  columns: t.field({
    type: [ColumnObject],
    description: "Its columns (a dataset version's): the schema's in order, then fields only column edges name, by name.",
    resolve: (artifact, _args, ctx) => columnsLoader(ctx).load(artifact.id),
  }),
}));

builder.objectFields(ExecutionRef, (t) => ({
  columnEdges: t.field({ type: [ColumnEdgeObject], description: "The column edges this run recorded, in recording order.", resolve: (execution, _args, ctx) => runEdgesLoader(ctx).load(execution.runId) }),
}));

const ColumnLineageNodeObject = builder.objectRef<ColumnClosureNode>("ColumnLineageNode").implement({
  description: "A column reached by a column-lineage walk (or a whole dataset version), with its distance from the root.",
  fields: (t) => ({
    artifact: t.field({ type: ArtifactRef, description: "Its dataset version.", resolve: (n) => n.artifactId }),
    artifactId: t.id({ description: "Its dataset version's id (art_…).", resolve: (n) => n.artifactId }),
    field: t.exposeString("field", { nullable: true, description: "null: a whole dataset version (reached downstream through a dataset-wide edge)." }),
    depth: t.exposeInt("depth", { description: "Fewest hops from the root." }),
  }),
});

const ColumnLineageObject = builder.objectRef<DatasetColumnLineage>("ColumnLineage").implement({
  description: "Transitive column lineage from one column, nearest first.",
  fields: (t) => ({
    root: t.field({ type: ColumnRefObject, description: "The column the walk starts from, in the dataset version chosen.", resolve: (c) => c.root }),
    direction: t.field({ type: LineageDirectionEnum, description: "The direction walked: UPSTREAM or DOWNSTREAM.", resolve: (c) => c.direction }),
    nodes: t.field({ type: [ColumnLineageNodeObject], description: "The columns reached (the root excluded), by depth, then artifact id and field; at most `first`.", resolve: (c) => c.nodes }),
    edges: t.field({ type: [ColumnEdgeObject], description: "The edges among the returned columns and the root, in recording order.", resolve: (c) => c.edges }),
    truncated: t.boolean({ description: "More columns were reachable than returned (cut at `first` or at the walk's budget).", resolve: (c) => c.truncated }),
    provJson: t.field({
      type: "JSON",
      description: "The same closure as W3C PROV-JSON: columns as entities (members of their dataset version's entity), edges as wasDerivedFrom with their run and type.",
      resolve: async (c, _args, ctx) => withholdEdgeDescriptions(ctx, c.provJson ?? (await ctx.services.columns.provJson.export(c)), c.edges),
    }),
  }),
});

/**
 * A column closure's PROV-JSON as the viewer may see it: the description of each derivation whose
 * edge the redaction rule withholds is left out, and the derivation says so (`provgraph:redacted`).
 * Derivations are numbered in the closure's edge order (ColumnProvJsonExporter).
 */
async function withholdEdgeDescriptions(ctx: GraphQLContext, doc: ColumnProvJsonDocument, edges: readonly ColumnEdgeRecord[]): Promise<ColumnProvJsonDocument> {
  const described = edges.map((edge, i) => ({ edge, key: `_:columnDerivation${i + 1}` })).filter(({ edge }) => edge.description !== null);
  const hidden = await withheld(ctx, described.map(({ edge }) => columnEdgeSubject(edge)));
  described.forEach(({ key }, i) => {
    const derivation = doc.wasDerivedFrom[key];
    if (!hidden[i] || !derivation) return;
    delete derivation["provgraph:description"];
    derivation["provgraph:redacted"] = ["provgraph:description"];
  });
  return doc;
}

builder.queryField("columnLineage", (t) =>
  t.field({
    type: ColumnLineageObject,
    description:
      "Transitive column lineage of one column of a dataset (its newest version, or `version`), as one recursive SQL statement. UPSTREAM follows the edges into each column " +
      "and the dataset-wide edges into its version; DOWNSTREAM the edges out of each column. An unknown dataset, version or field is NOT_FOUND.",
    args: {
      namespace: t.arg.string({ required: true, description: "The dataset's namespace." }),
      name: t.arg.string({ required: true, description: "The dataset's name within its namespace." }),
      version: t.arg.string({ description: "A dataset version (the `version` facet's value, or the producing run's id: `run_<uuid>` or the bare OpenLineage runId); default the newest recorded." }),
      field: t.arg.string({ required: true, description: "The column to start from: its field, nested fields as dotted paths (address.city)." }),
      direction: t.arg({ type: LineageDirectionEnum, defaultValue: "UPSTREAM", description: "UPSTREAM (the default): the columns it comes from; DOWNSTREAM: the columns that come from it." }),
      maxDepth: t.arg.int({ description: "Hops to follow; null = fully transitive, 0 = the root alone." }),
      types: t.arg({ type: [ColumnEdgeTypeEnum], description: "Follow only edges of these types (default both)." }),
      first: t.arg.int({ description: `Most columns to return besides the root, nearest first: default ${formatCount(DEFAULT_COLUMN_CLOSURE_NODES)}, at most ${formatCount(MAX_COLUMN_CLOSURE_NODES)} (above is PAGE_SIZE); \`truncated\` says when there is more.` }),
    },
    resolve: (_root, args, ctx, info) =>
      heavyRead(
        ctx,
        "columnLineage",
        { namespace: args.namespace, name: args.name, version: args.version, field: args.field, direction: args.direction ?? "UPSTREAM", maxDepth: args.maxDepth, types: args.types, first: args.first, withProvJson: selectedFieldNames(info, []).has("provJson") },
        { shared: true },
      ),
  }),
);

const UnresolvedReasonEnum = builder.enumType("UnresolvedColumnReason", {
  description: "Why a column's provenance does not resolve to a root.",
  values: {
    NO_COLUMN_LINEAGE: { description: "The run that produced it reported no column lineage for it." },
    UPSTREAM_UNRESOLVED: { description: "A column upstream of it does not resolve to a root." },
  },
});

const UnresolvedColumnObject = builder.objectRef<UnresolvedColumn>("UnresolvedColumn").implement({
  description: "An output column whose provenance does not resolve to a root, and why.",
  fields: (t) => ({
    artifact: t.field({ type: ArtifactRef, description: "The measured dataset version it belongs to.", resolve: (c) => c.artifactId }),
    field: t.exposeString("field", { description: "The column's field." }),
    reason: t.field({ type: UnresolvedReasonEnum, description: "Why it does not resolve.", resolve: (c) => c.reason }),
  }),
});

const OpaqueNodeObject = builder.objectRef<OpaqueNode>("OpaqueNode").implement({
  description: "A run that produced a dataset version and reported no column lineage into it: provenance of its columns stops there (marked, never dropped).",
  fields: (t) => ({
    run: t.field({ type: ExecutionRef, description: "The run that produced the version and reported no column lineage into it.", resolve: (n) => n.runId }),
    artifact: t.field({ type: ArtifactRef, description: "The version it produced.", resolve: (n) => n.artifactId }),
    columns: t.exposeInt("columns", { description: "Columns of that version (known from its schema or from edges)." }),
  }),
});

const CoverageObject = builder.objectRef<LineageCoverage>("LineageCoverage").implement({
  description: `How much of a namespace's column lineage is known: the share of output columns whose provenance resolves to a root; below ${COVERAGE_THRESHOLD * 100}% the graph is not fit for impact analysis.`,
  fields: (t) => ({
    namespace: t.exposeString("namespace", { description: "The namespace measured." }),
    outputVersions: t.field({ type: [ArtifactRef], description: "What was measured: the newest produced version of each dataset of the namespace.", resolve: (c) => c.outputVersions }),
    outputColumns: t.exposeInt("outputColumns", { description: "How many columns the measured versions have (from their schemas, or named only by column edges)." }),
    resolvedColumns: t.exposeInt("resolvedColumns", { description: "How many of them resolve to a root." }),
    share: t.exposeFloat("share", { nullable: true, description: "resolvedColumns / outputColumns; null without output columns." }),
    threshold: t.exposeFloat("threshold", { description: `The share needed to be fit for impact analysis: ${COVERAGE_THRESHOLD}.` }),
    fitForImpactAnalysis: t.exposeBoolean("fitForImpactAnalysis", { description: "share ≥ threshold (and the walk was not cut)." }),
    unresolvedCount: t.exposeInt("unresolvedCount", { description: "How many output columns do not resolve, all of them (`unresolved` lists at most `first`)." }),
    unresolved: t.field({ type: [UnresolvedColumnObject], description: "The output columns that do not resolve (at most `first`), by artifact id then field.", resolve: (c) => c.unresolved }),
    opaqueNodes: t.field({ type: [OpaqueNodeObject], description: "Opaque runs among the producers of the measured versions and of everything upstream of them (at most `first`).", resolve: (c) => c.opaqueNodes }),
    truncated: t.exposeBoolean("truncated", { description: "The upstream walk was cut at its budget: never fit then." }),
  }),
});

builder.queryField("lineageCoverage", (t) =>
  t.field({
    type: CoverageObject,
    description:
      "How much of a namespace's column lineage resolves to roots (a root: a column with no upstream and no producing run inside provgraph), measured on the newest produced version " +
      "of each of its datasets; lists the columns that do not, and the opaque runs.",
    args: {
      namespace: t.arg.string({ required: true, description: "The namespace whose datasets are measured; one without produced datasets measures nothing (share null)." }),
      first: t.arg.int({ description: `Most unresolved columns and opaque nodes listed: default ${DEFAULT_COVERAGE_ITEMS}, at most ${MAX_COVERAGE_ITEMS}.` }),
    },
    resolve: (_root, args, ctx) => ctx.services.columns.coverage.coverage(args.namespace, args.first ?? DEFAULT_COVERAGE_ITEMS),
  }),
);
