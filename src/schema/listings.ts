import { createContextCache } from "@pothos/core";
import DataLoader from "dataloader";
import type { DatasetListing, JobListing, LastRun, NamespaceListing, PipelineListing } from "../services/discovery";
import { ArtifactRef, DatasetRefObject } from "./artifact";
import { builder } from "./builder";
import { counted, resolveKeysetConnection, totalCount } from "./connection-page";
import type { GraphQLContext } from "./context";
import { ExecutionRef, ExecutionStatusEnum } from "./execution";
import { OperationRef } from "./operation";

/**
 * The listings a user interface pages through (docs: "Listings"): namespaces, the datasets of one,
 * jobs, pipelines and artifacts, each a Relay connection with stable cursors (a thing's place in its
 * order never moves: names sort by their fold, artifacts by when they were recorded).
 */

const entryCursor = (connection: string) => ({ connection, keyOf: (row: { entryId: number }) => String(row.entryId), parseKey: (key: string) => (/^[1-9]\d{0,15}$/.test(key) ? Number(key) : undefined) });

// Per request: one statement for all the jobs (pipelines) of a page.
const lastRunOfOperation = createContextCache((ctx: GraphQLContext) => new DataLoader<string, LastRun | null>((ids) => ctx.services.discovery.lastRunsOfOperations(ids)));
const lastRunOfPipeline = createContextCache((ctx: GraphQLContext) => new DataLoader<string, LastRun | null>((names) => ctx.services.discovery.lastRunsOfPipelines(names)));
const runCount = createContextCache((ctx: GraphQLContext) => new DataLoader<string, number>((ids) => ctx.services.discovery.runCounts(ids)));
const stepCount = createContextCache((ctx: GraphQLContext) => new DataLoader<string, number>((names) => ctx.services.discovery.stepCounts(names)));

const NamespaceObject = builder.objectRef<NamespaceListing>("Namespace").implement({
  description: "An OpenLineage namespace: of datasets, of jobs, or both.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The namespace, as its datasets and jobs carry it." }),
    datasetCount: t.exposeInt("datasetCount", { description: "Datasets in it (across their versions, each once)." }),
    jobCount: t.exposeInt("jobCount", { description: "OpenLineage jobs in it." }),
  }),
});

const JobKindEnum = builder.enumType("JobKind", {
  description: "What a job is: a registered operation or an OpenLineage job.",
  values: {
    OPERATION: { description: "An operation registered with registerOperation (or registerComposite)." },
    OPENLINEAGE: { description: "An OpenLineage job, an operation versioned `openlineage:<namespace>` since its first event." },
  },
});

const JobObject = builder.objectRef<JobListing>("Job").implement({
  description: "A registered operation or an OpenLineage job, with its latest run.",
  fields: (t) => ({
    id: t.exposeID("id", { description: "op_… for a registered operation, `job:<namespace>/<name>` for an OpenLineage job (what search opens)." }),
    kind: t.field({ type: JobKindEnum, description: "A registered operation or an OpenLineage job.", resolve: (j) => j.kind }),
    namespace: t.exposeString("namespace", { nullable: true, description: "An OpenLineage job's namespace." }),
    name: t.exposeString("name", { description: "The operation's or the OpenLineage job's name." }),
    version: t.string({ nullable: true, description: "A registered operation's version.", resolve: async (j, _args, ctx) => (j.kind === "OPERATION" ? (await OperationRef.getDataloader(ctx).load(j.operationId)).version : null) }),
    operation: t.field({ type: OperationRef, description: "The operation it is (an OpenLineage job's too).", resolve: (j) => j.operationId }),
    lastRun: t.field({ type: ExecutionRef, nullable: true, description: "Its latest run, by when it was recorded.", resolve: async (j, _args, ctx) => (await lastRunOfOperation(ctx).load(j.operationId))?.runId ?? null }),
    lastStatus: t.field({ type: ExecutionStatusEnum, nullable: true, description: "The status of its latest run (`lastRun`); null when it has none.", resolve: async (j, _args, ctx) => (await lastRunOfOperation(ctx).load(j.operationId))?.status ?? null }),
    runCount: t.int({ description: "How many runs it has.", resolve: (j, _args, ctx) => runCount(ctx).load(j.operationId) }),
  }),
});

const PipelineObject = builder.objectRef<PipelineListing>("Pipeline").implement({
  description: "A named pipeline: its steps and its latest run.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The pipeline's name, as its executions report it (`pipeline`)." }),
    stepCount: t.int({ description: "How many steps are recorded for it (distinct step numbers).", resolve: (p, _args, ctx) => stepCount(ctx).load(p.name) }),
    lastRun: t.field({ type: ExecutionRef, nullable: true, description: "Its latest run (of any step), by when it was recorded.", resolve: async (p, _args, ctx) => (await lastRunOfPipeline(ctx).load(p.name))?.runId ?? null }),
    lastStatus: t.field({ type: ExecutionStatusEnum, nullable: true, description: "The status of its latest run (`lastRun`); null when it has none.", resolve: async (p, _args, ctx) => (await lastRunOfPipeline(ctx).load(p.name))?.status ?? null }),
  }),
});

builder.queryFields((t) => ({
  namespaces: t.connection(
    {
      type: NamespaceObject,
      description: "Namespaces of datasets and OpenLineage jobs, by name; `prefix` keeps those starting with it. `first`/`last` may be at most 500.",
      args: { prefix: t.arg.string({ description: "Keeps the namespaces whose name starts with this (case-sensitive)." }) },
      resolve: async (_root, args, ctx) => {
        const filter = { prefix: args.prefix };
        const page = await resolveKeysetConnection<NamespaceListing, string>(args, { connection: "namespaces", keyOf: (n) => n.name, parseKey: (key) => key }, (p) => ctx.services.discovery.namespaces(filter, p));
        return counted(page, () => ctx.services.discovery.listed.namespaces(filter));
      },
    },
    { name: "NamespaceConnection", ...totalCount },
    { name: "NamespaceEdge" },
  ),
  datasets: t.connection(
    {
      type: DatasetRefObject,
      description: "The datasets of a namespace, by name (case of A–Z ignored); `prefix` keeps names starting with it. Each is the dataset across its versions (`version` null).",
      args: {
        namespace: t.arg.string({ required: true, description: "The namespace, exactly as recorded (case-sensitive); one with no datasets gives an empty page." }),
        prefix: t.arg.string({ description: "Keeps the datasets whose name starts with this (case of A–Z ignored)." }),
      },
      resolve: async (_root, args, ctx) => {
        const filter = { namespace: args.namespace, prefix: args.prefix };
        const page = await resolveKeysetConnection<DatasetListing, number>(args, entryCursor("datasets"), (p) => ctx.services.discovery.datasets(filter, p));
        const edges = page.edges.map((e) => ({ cursor: e.cursor, node: { namespace: e.node.namespace, name: e.node.name, version: null } }));
        return counted({ ...page, edges }, () => ctx.services.discovery.listed.datasets(filter));
      },
    },
    { name: "DatasetConnection", ...totalCount },
    { name: "DatasetEdge" },
  ),
  jobs: t.connection(
    {
      type: JobObject,
      description: "Registered operations and OpenLineage jobs, by name (case of A–Z ignored), with their latest run; `namespace` keeps an OpenLineage namespace's jobs, `prefix` names starting with it.",
      args: {
        namespace: t.arg.string({ description: "Keeps the OpenLineage jobs of this namespace, exactly as recorded (registered operations have none, so they are left out)." }),
        prefix: t.arg.string({ description: "Keeps the jobs whose name starts with this (case of A–Z ignored)." }),
      },
      resolve: async (_root, args, ctx) => {
        const filter = { namespace: args.namespace, prefix: args.prefix };
        const page = await resolveKeysetConnection<JobListing, number>(args, entryCursor("jobs"), (p) => ctx.services.discovery.jobs(filter, p));
        return counted(page, () => ctx.services.discovery.listed.jobs(filter));
      },
    },
    { name: "JobConnection", ...totalCount },
    { name: "JobEdge" },
  ),
  pipelines: t.connection(
    {
      type: PipelineObject,
      description: "Pipelines, by name (case of A–Z ignored), with their step count and latest run; `prefix` keeps names starting with it.",
      args: { prefix: t.arg.string({ description: "Keeps the pipelines whose name starts with this (case of A–Z ignored)." }) },
      resolve: async (_root, args, ctx) => {
        const filter = { prefix: args.prefix };
        const page = await resolveKeysetConnection<PipelineListing, number>(args, entryCursor("pipelines"), (p) => ctx.services.discovery.pipelines(filter, p));
        return counted(page, () => ctx.services.discovery.listed.pipelines(filter));
      },
    },
    { name: "PipelineConnection", ...totalCount },
    { name: "PipelineEdge" },
  ),
  artifacts: t.connection(
    {
      type: ArtifactRef,
      description:
        "Artifacts, newest first (by when provgraph recorded them): of a type (`artifactType`, as registered), with a name starting with `namePrefix` (case of A–Z ignored). Dataset versions are listed by `datasets` and `Dataset.versions`.",
      args: {
        artifactType: t.arg.string({ description: "Keeps the artifacts of this type, exactly as registered (case-sensitive)." }),
        namePrefix: t.arg.string({ description: "Keeps the artifacts whose originalName starts with this (case of A–Z ignored)." }),
      },
      resolve: async (_root, args, ctx) => {
        const filter = { artifactType: args.artifactType, namePrefix: args.namePrefix };
        const page = await resolveKeysetConnection(args, entryCursor("artifacts"), (p) => ctx.services.discovery.artifacts(filter, p));
        const edges = page.edges.map((e) => ({ cursor: e.cursor, node: e.node.artifactId as string }));
        return counted({ ...page, edges }, () => ctx.services.discovery.listed.artifacts(filter));
      },
    },
    { name: "ArtifactConnection", ...totalCount },
    { name: "ArtifactEdge" },
  ),
}));
