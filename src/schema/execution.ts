import { createContextCache } from "@pothos/core";
import DataLoader from "dataloader";
import { builder } from "./builder";
import { loadForArgument, loadOrNotFound, NodeInterface, registerNodeLoader } from "./node";
import { isIdOfKind, type RunId } from "../services/ids";
import { EXECUTION_STATUSES, type ExecutionLinkRecord, type ExecutionRecord, type LinkDirection, type ReplayPins } from "../services/records";
import type { GraphQLContext } from "./context";
import { ArtifactRef } from "./artifact";
import { resolveKeysetConnection } from "./connection-page";
import { runIdArg, specIdArg } from "./id-args";
import { OperationRef } from "./operation";

export const ExecutionStatusEnum = builder.enumType("ExecutionStatus", { values: EXECUTION_STATUSES });

export const ReplayPinsObject = builder.objectRef<ReplayPins>("ReplayPins").implement({
  description: "What a replay must pin to reproduce this execution exactly.",
  fields: (t) => ({
    inputVersions: t.expose("inputVersions", { type: "JSON", nullable: true }),
    codeVersion: t.exposeString("codeVersion", { nullable: true, description: "e.g. the git commit of the code that ran." }),
    imageDigest: t.exposeString("imageDigest", { nullable: true }),
    deterministic: t.exposeBoolean("deterministic", { nullable: true }),
  }),
});

const ExecutionArtifactLink = builder.objectRef<ExecutionLinkRecord>("ExecutionArtifactLink").implement({
  description: "An artifact an execution used or produced, in the role it played.",
  fields: (t) => ({
    role: t.exposeString("role"),
    position: t.exposeInt("position", { description: "Index of the artifact within its role, as reported." }),
    artifact: t.field({ type: ArtifactRef, resolve: (link) => link.artifactId }),
  }),
});

// One loader per request and direction (one statement however many executions a query reaches);
// the recording mutation primes them with what it just wrote.
const consumedLinks = createContextCache((ctx: GraphQLContext) => new DataLoader<RunId, ExecutionLinkRecord[]>((runIds) => ctx.services.executions.links(runIds, "CONSUMED")));
const producedLinks = createContextCache((ctx: GraphQLContext) => new DataLoader<RunId, ExecutionLinkRecord[]>((runIds) => ctx.services.executions.links(runIds, "PRODUCED")));

export function executionLinks(ctx: GraphQLContext, direction: LinkDirection): DataLoader<RunId, ExecutionLinkRecord[]> {
  return direction === "CONSUMED" ? consumedLinks(ctx) : producedLinks(ctx);
}

export const ExecutionRef = builder.loadableObjectRef<ExecutionRecord, string>("Execution", {
  load: (ids: string[], ctx) => loadOrNotFound("execution", (keys) => ctx.services.executions.byRunIds(keys as RunId[]))(ids),
});

registerNodeLoader("Execution", (context) => ExecutionRef.getDataloader(context));

ExecutionRef.implement({
  interfaces: [NodeInterface],
  description: "One attempt of an operation [prov:Activity]. Its id is its runId.",
  fields: (t) => ({
    runId: t.exposeID("runId", { description: "Unique per attempt: run_ + a UUIDv7 (time-ordered) for executions provgraph recorded, run_ + the producer's runId for OpenLineage runs." }),
    specId: t.exposeID("specId", { description: "Same request (operation, version, params, inputs) = same specId." }),
    operation: t.field({ type: OperationRef, resolve: (execution) => execution.operationId }),
    status: t.expose("status", { type: ExecutionStatusEnum }),
    params: t.expose("params", { type: "JSON", nullable: true }),
    agent: t.exposeString("agent", { nullable: true, description: "Who or what ran it [prov:wasAssociatedWith]." }),
    startedAt: t.expose("startedAt", { type: "DateTime", nullable: true }),
    endedAt: t.expose("endedAt", { type: "DateTime", nullable: true }),
    recordedAt: t.expose("recordedAt", { type: "DateTime" }),
    pins: t.expose("pins", { type: ReplayPinsObject }),
    pipeline: t.exposeString("pipeline", { nullable: true }),
    step: t.exposeInt("step", { nullable: true }),
    parent: t.field({
      type: ExecutionRef,
      nullable: true,
      description: "The composite execution this one ran inside, if any.",
      resolve: (execution) => execution.parentRunId,
    }),
    inputs: t.field({
      type: [ExecutionArtifactLink],
      description: "Artifacts consumed [prov:used], by role.",
      resolve: (execution, _args, ctx) => executionLinks(ctx, "CONSUMED").load(execution.runId),
    }),
    outputs: t.field({
      type: [ExecutionArtifactLink],
      description: "Artifacts produced [prov:wasGeneratedBy], by role.",
      resolve: (execution, _args, ctx) => executionLinks(ctx, "PRODUCED").load(execution.runId),
    }),
  }),
});


const ExecutionFilterInput = builder.inputType("ExecutionFilter", {
  fields: (t) => ({
    operation: t.string({ description: "Operation name (any version)." }),
    status: t.field({ type: ExecutionStatusEnum }),
    specId: t.id(),
    pipeline: t.string(),
  }),
});

builder.queryFields((t) => ({
  execution: t.field({
    type: ExecutionRef,
    description: "One execution by its runId. Unknown runIds are a NOT_FOUND error.",
    args: { runId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => loadForArgument("runId", ExecutionRef.getDataloader(ctx).load(runIdArg("runId", args.runId))),
  }),
  executions: t.connection({
    type: ExecutionRef,
    description: "Executions, newest first. `first`/`last` may be at most 500.",
    args: { filter: t.arg({ type: ExecutionFilterInput }) },
    resolve: (_root, args, ctx) => {
      const filter = {
        operation: args.filter?.operation,
        status: args.filter?.status,
        specId: args.filter?.specId != null ? specIdArg("filter.specId", args.filter.specId) : null,
        pipeline: args.filter?.pipeline,
      };
      return resolveKeysetConnection<ExecutionRecord, RunId>(
        args,
        { connection: "executions", keyOf: (e) => e.runId, parseKey: (k) => (isIdOfKind(k, "run") ? (k as RunId) : undefined) },
        (page) => ctx.services.executions.list(filter, page),
      );
    },
  }),
  executionsBySpec: t.field({
    type: [ExecutionRef],
    description: "Every attempt of one request, oldest first: the cache lookup.",
    args: { specId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.executions.bySpec(specIdArg("specId", args.specId)),
  }),
}));
