import { builder } from "./builder";
import { loadOrNotFound, NodeInterface, registerNodeLoader } from "./node";
import { NotFoundError } from "../services/errors";
import type { OperationId } from "../services/ids";
import { GROUP_BY_MODES, type LineageSource, OPERATION_KINDS, type OperationRecord, type RoleRecord } from "../services/records";
import { resolveKeysetConnection } from "./connection-page";

export const OperationKindEnum = builder.enumType("OperationKind", {
  values: {
    CREATOR: {
      description: "Makes new artifacts: every output role declares inferLineageFrom, and an output may not be one of its own sources (SELF_DERIVATION).",
    },
    CURATOR: {
      description:
        "Passes artifacts through or filters them: an output role without inferLineageFrom re-emits inputs, each output one of the execution's inputs (NOT_PASSTHROUGH otherwise), with no edge.",
    },
    COMPOSITE: {
      description: "A composite registered with registerComposite (registerOperation refuses this kind); its runs are recorded with recordCompositeExecution.",
    },
  } satisfies Record<(typeof OPERATION_KINDS)[number], unknown>,
  description: "CREATOR makes new artifacts; CURATOR passes artifacts through or filters them; COMPOSITE wires registered operations into one.",
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
    inputs: t.stringList({
      nullable: true,
      description: "The input roles the output is stem-matched against (with groupBy, the first only); empty: generative. Null when it derives from output roles.",
      resolve: (s) => (s.from === "INPUTS" ? s.roles : null),
    }),
    outputs: t.stringList({
      nullable: true,
      description: "The other output roles the output derives from (output-to-output). Null when it derives from input roles.",
      resolve: (s) => (s.from === "OUTPUTS" ? s.roles : null),
    }),
  }),
});

const InputRoleObject = builder.objectRef<RoleRecord>("InputRole").implement({
  description: "An input role an operation declares: what its executions use in it.",
  fields: (t) => ({
    role: t.exposeString("role", { description: "The role's name, unique among the operation's input roles." }),
    artifactType: t.exposeString("artifactType", { description: "The type every artifact given in the role must have (ARTIFACT_TYPE_MISMATCH otherwise)." }),
    required: t.exposeBoolean("required", { description: "An execution must give the role at least one artifact (REQUIRED_ROLE_MISSING otherwise)." }),
  }),
});

const OutputRoleObject = builder.objectRef<RoleRecord>("OutputRole").implement({
  description: "An output role an operation declares: what its executions produce in it, and where their lineage comes from.",
  fields: (t) => ({
    role: t.exposeString("role", { description: "The role's name, unique among the operation's output roles." }),
    artifactType: t.exposeString("artifactType", { description: "The type of the artifacts recorded in the role." }),
    required: t.exposeBoolean("required", { description: "A COMPLETED execution reports at least one artifact in the role." }),
    inferLineageFrom: t.field({
      type: LineageSourceObject,
      nullable: true,
      description: "Where the role's lineage is inferred from. Null: none declared, a curator's passthrough role or a composite's output role (its lineage composed from the steps').",
      resolve: (r) => r.inferLineageFrom,
    }),
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
    name: t.exposeString("name", { description: "The operation's name." }),
    version: t.exposeString("version", { description: "Its version: a name and version is registered once and never changes." }),
    kind: t.expose("kind", { type: OperationKindEnum, description: "CREATOR, CURATOR or COMPOSITE (then `composite` gives its wiring)." }),
    groupBy: t.expose("groupBy", {
      type: GroupByEnum,
      nullable: true,
      description: "How its inputs are paired across roles; null: no pairing (an output's inferred source is the one input its stem matches).",
    }),
    businessDateParam: t.exposeString("businessDateParam", { nullable: true, description: "The parameter whose value is a run's business date (null: none declared; OpenLineage runs use their nominalTime facet)." }),
    inputs: t.field({ type: [InputRoleObject], description: "The declared input roles, in the order declared.", resolve: (o) => o.inputs }),
    outputs: t.field({ type: [OutputRoleObject], description: "The declared output roles, in the order declared.", resolve: (o) => o.outputs }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the operation was registered." }),
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
    args: { name: t.arg.string({ required: true, description: "The operation's name." }), version: t.arg.string({ required: true, description: "The operation's version." }) },
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
