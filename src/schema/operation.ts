import { builder } from "./builder";
import { loadOrNotFound, NodeInterface, registerNodeLoader } from "./node";
import { NotFoundError } from "../services/errors";
import type { OperationId } from "../services/ids";
import { GROUP_BY_MODES, type LineageSource, OPERATION_KINDS, type OperationRecord, type RoleRecord } from "../services/records";
import { resolveKeysetConnection } from "./connection-page";

export const OperationKindEnum = builder.enumType("OperationKind", {
  values: OPERATION_KINDS,
  description: "CREATOR makes new artifacts; CURATOR passes artifacts through or filters them.",
});
export const GroupByEnum = builder.enumType("GroupBy", {
  values: {
    ZIP: { description: "The i-th artifact of every input role forms group i; roles of unequal length are ZIP_LENGTH_MISMATCH." },
    CROSS_PRODUCT: { description: "Every combination of one artifact per input role forms a group; an empty role gives none." },
    LINEAGE: {
      description:
        "Exactly two input roles: an artifact of each forms a group when they share an ancestor in the provenance graph (each artifact counting as its own). Artifacts in no group are reported (`unpaired`).",
    },
  } satisfies Record<(typeof GROUP_BY_MODES)[number], unknown>,
  description:
    "How inputs are paired across roles into groups, each one joint derivation's inputs. An output is stem-matched against its primary role only " +
    "(the first role its inferLineageFrom names); the group of the matched artifact gives its co-inputs. Where the matched artifact is in several groups " +
    "(CROSS_PRODUCT, LINEAGE), the rest of the output's stem after the matched stem names the partner of each further role (`s1_cfgA.out`: `s1.csv` with `cfgA.json`).",
});

const LineageSourceObject = builder.objectRef<NonNullable<LineageSource>>("LineageSource").implement({
  description: "Where an output role's lineage is inferred from: input roles, or other output roles. Empty input roles = generative.",
  fields: (t) => ({
    inputs: t.stringList({ nullable: true, resolve: (s) => (s.from === "INPUTS" ? s.roles : null) }),
    outputs: t.stringList({ nullable: true, resolve: (s) => (s.from === "OUTPUTS" ? s.roles : null) }),
  }),
});

const InputRoleObject = builder.objectRef<RoleRecord>("InputRole").implement({
  fields: (t) => ({
    role: t.exposeString("role"),
    artifactType: t.exposeString("artifactType"),
    required: t.exposeBoolean("required"),
  }),
});

const OutputRoleObject = builder.objectRef<RoleRecord>("OutputRole").implement({
  fields: (t) => ({
    role: t.exposeString("role"),
    artifactType: t.exposeString("artifactType"),
    required: t.exposeBoolean("required", { description: "A COMPLETED execution reports at least one artifact in the role." }),
    inferLineageFrom: t.field({ type: LineageSourceObject, nullable: true, resolve: (r) => r.inferLineageFrom }),
  }),
});

export const OperationRef = builder.loadableObjectRef<OperationRecord, string>("Operation", {
  load: (ids: string[], ctx) => loadOrNotFound("operation", (keys) => ctx.services.operations.byIds(keys as OperationId[]))(ids),
});

registerNodeLoader("Operation", (context) => OperationRef.getDataloader(context));

OperationRef.implement({
  interfaces: [NodeInterface],
  description: "A named, versioned kind of step with its declared input and output roles.",
  fields: (t) => ({
    name: t.exposeString("name"),
    version: t.exposeString("version"),
    kind: t.expose("kind", { type: OperationKindEnum }),
    groupBy: t.expose("groupBy", { type: GroupByEnum, nullable: true }),
    businessDateParam: t.exposeString("businessDateParam", { nullable: true, description: "The parameter whose value is a run's business date (null: none declared; OpenLineage runs use their nominalTime facet)." }),
    inputs: t.field({ type: [InputRoleObject], resolve: (o) => o.inputs }),
    outputs: t.field({ type: [OutputRoleObject], resolve: (o) => o.outputs }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

type OperationKey = { name: string; version: string };

function parseOperationKey(key: string): OperationKey | undefined {
  try {
    const value: unknown = JSON.parse(key);
    return Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === "string")
      ? { name: value[0], version: value[1] }
      : undefined;
  } catch {
    return undefined;
  }
}

builder.queryFields((t) => ({
  operation: t.field({
    type: OperationRef,
    description: "One operation by name and version. Unknown ones are a NOT_FOUND error.",
    args: { name: t.arg.string({ required: true }), version: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const operation = await ctx.services.operations.byNameAndVersion(args.name, args.version);
      if (!operation) throw new NotFoundError("operation", `${args.name}@${args.version}`, "name");
      return operation;
    },
  }),
  operations: t.connection({
    type: OperationRef,
    description: "Registered operations by name, then version. `first`/`last` may be at most 500.",
    resolve: (_root, args, ctx) =>
      resolveKeysetConnection<OperationRecord, OperationKey>(
        args,
        { connection: "operations", keyOf: (o) => JSON.stringify([o.name, o.version]), parseKey: parseOperationKey },
        (page) => ctx.services.operations.list(page),
      ),
  }),
}));
