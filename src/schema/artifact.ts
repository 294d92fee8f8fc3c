import { CONFIG_INPUT_ROLE } from "../../plugins/types";
import { builder } from "./builder";
import { loadForArgument, loadOrNotFound, NodeInterface, registerNodeLoader } from "./node";
import type { ArtifactId } from "../services/ids";
import type { ArtifactRecord, DatasetRef } from "../services/records";
import { ExecutionRef } from "./execution";
import { artifactIdArg } from "./id-args";
import { artifactSubject } from "./policy-subjects";

export const DatasetRefObject = builder.objectRef<DatasetRef>("Dataset").implement({
  description: "The dataset an artifact is a version of (OpenLineage namespace and name).",
  fields: (t) => ({
    namespace: t.exposeString("namespace"),
    name: t.exposeString("name"),
    version: t.exposeString("version", { nullable: true }),
  }),
});

export const ArtifactRef = builder.loadableObjectRef<ArtifactRecord, string>("Artifact", {
  load: (ids: string[], ctx) => loadOrNotFound("artifact", (keys) => ctx.services.artifacts.byIds(keys as ArtifactId[]))(ids),
});

registerNodeLoader("Artifact", (context) => ArtifactRef.getDataloader(context));

ArtifactRef.implement({
  interfaces: [NodeInterface],
  description: "An immutable, content-addressed thing an execution used or produced [prov:Entity].",
  fields: (t) => ({
    artifactType: t.exposeString("artifactType"),
    originalName: t.exposeString("originalName", { description: "The file or object name the producer reported." }),
    contentHash: t.exposeString("contentHash"),
    metadata: t.expose("metadata", {
      type: "JSON",
      nullable: true,
      // Policy tags guard it (src/schema/policy.ts): null without the clearance for each tag the artifact holds as a whole.
      redactBy: (a) => artifactSubject(a),
      description: "As its producer reported it. Null without the clearance for each policy tag the artifact holds as a whole (see `redacted`).",
    }),
    dataset: t.field({ type: DatasetRefObject, nullable: true, resolve: (artifact) => artifact.dataset }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When provgraph first recorded it." }),
    producedBy: t.loadableList({
      type: ExecutionRef,
      description: "Executions that produced this artifact [prov:wasGeneratedBy], oldest first.",
      load: (ids: ArtifactId[], ctx) => ctx.services.artifacts.linkedRunIds(ids, "PRODUCED"),
      resolve: (artifact) => artifact.id,
    }),
    consumedBy: t.loadableList({
      type: ExecutionRef,
      description: "Executions that used this artifact as an input [prov:used], oldest first (including those whose params reference it).",
      load: (ids: ArtifactId[], ctx) => ctx.services.artifacts.linkedRunIds(ids, "CONSUMED"),
      resolve: (artifact) => artifact.id,
    }),
    referencedByExecutions: t.loadableList({
      type: ExecutionRef,
      description: `Executions whose params reference this artifact ({"$artifact": id}; used in role \`${CONFIG_INPUT_ROLE}\`), oldest first.`,
      load: (ids: ArtifactId[], ctx) => ctx.services.artifacts.linkedRunIds(ids, "CONSUMED", CONFIG_INPUT_ROLE),
      resolve: (artifact) => artifact.id,
    }),
  }),
});

builder.queryField("artifact", (t) =>
  t.field({
    type: ArtifactRef,
    description: "One artifact by its id (art_…). Unknown ids are a NOT_FOUND error.",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => loadForArgument("id", ArtifactRef.getDataloader(ctx).load(artifactIdArg("id", args.id))),
  }),
);
