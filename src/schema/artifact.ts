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
    namespace: t.exposeString("namespace", { description: "The dataset's namespace (OpenLineage's: usually where it lives, such as a database or a bucket)." }),
    name: t.exposeString("name", { description: "The dataset's name within its namespace." }),
    version: t.exposeString("version", {
      nullable: true,
      description:
        "The version this artifact is: as its producer named it (OpenLineage: the `version` dataset facet), or, for an OpenLineage output reported without one, the runId (run_…) of the run that made it. Null for the dataset itself (`dataset`, `datasets`) and for an unversioned one.",
    }),
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
    artifactType: t.exposeString("artifactType", { description: "Its type, as declared for the role it was recorded in (`dataset` for an OpenLineage dataset version); with `contentHash` it makes the id." }),
    originalName: t.exposeString("originalName", { description: "The file or object name the producer reported." }),
    contentHash: t.exposeString("contentHash", {
      description: "`<algorithm>:<digest>` as reported, algorithm and hex digest lower-case (an OpenLineage dataset version: sha256 of its namespace, name and version).",
    }),
    metadata: t.expose("metadata", {
      type: "JSON",
      nullable: true,
      // Policy tags guard it (src/schema/policy.ts): null without the clearance for each tag the artifact holds as a whole.
      redactBy: (a) => artifactSubject(a),
      description: "As its producer reported it. Null without the clearance for each policy tag the artifact holds as a whole (see `redacted`).",
    }),
    dataset: t.field({ type: DatasetRefObject, nullable: true, description: "The dataset this artifact is a version of; null when it is no dataset's version.", resolve: (artifact) => artifact.dataset }),
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
    args: { id: t.arg.id({ required: true, description: "The artifact's id (art_…); another kind of id, or a malformed one, is INVALID_ID." }) },
    resolve: (_root, args, ctx) => loadForArgument("id", ArtifactRef.getDataloader(ctx).load(artifactIdArg("id", args.id))),
  }),
);
