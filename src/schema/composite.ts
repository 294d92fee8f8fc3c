import { createContextCache } from "@pothos/core";
import DataLoader from "dataloader";
import { builder } from "./builder";
import type { GraphQLContext } from "./context";
import { MAX_NAME_BYTES } from "../services/safe-text";
import { ArtifactRef } from "./artifact";
import { ArtifactValidationError, ErrorInterface, LineageCompletenessError, LineageIntegrityError } from "./errors";
import { executionLinks, ExecutionRef, ExecutionStatusEnum } from "./execution";
import { loadOrNotFound } from "./node";
import { OperationRef } from "./operation";
import { ExplicitLineageInput, InputRoleInput, PinsInput, RoleArtifactsInput, RoleDraftsInput } from "./recording";
import {
  type CombinationSoundness,
  type CompositeDefinition,
  CompositeDeclarationError,
  CompositeExecutionError,
  type CompositeRunRecord,
  type CompositeStep,
  type CompositeStepRunRecord,
  INTERMEDIATES_MODES,
  type PlaceTokens,
  type SoundnessWitness,
  type Wire,
  type WorkflowSoundness,
} from "../services/composites";
import { NotFoundError } from "../services/errors";
import type { OperationId, RunId } from "../services/ids";
import type { ExecutionLinkRecord, ExecutionRecord } from "../services/records";

// Composites: registerComposite, recordCompositeExecution, compositeDefinition, workflowSoundness, and
// the fields they add to Execution and Operation. Translation only: the rules are in services/composites.

const IntermediatesEnum = builder.enumType("Intermediates", {
  description: "What a composite run keeps of its intermediates (artifacts its steps produce that are not composite outputs).",
  values: {
    DISCARD: { description: "Only the composite's inputs, outputs and shortcut edges; the step executions are kept (linked to the composite's inputs and outputs only), intermediates and internal edges are not." },
    PERSIST: { description: "Everything: intermediates and internal edges (stepBoundary false, the step's runId) beside the shortcut edges." },
    EXPOSE: { description: "As PERSIST, and intermediates are also outputs of the composite execution (role `<step>.<output role>`) with step-boundary shortcut edges." },
  } satisfies Record<(typeof INTERMEDIATES_MODES)[number], unknown>,
});

const StepConditionInput = builder.inputType("StepConditionInput", {
  description: "The step runs only when the flag has this value.",
  fields: (t) => ({
    flag: t.string({ required: true, description: "A flag the composite declares in `flags` (UNKNOWN_FLAG otherwise)." }),
    equals: t.boolean({ required: true, description: "The value the flag must have for the step to run." }),
  }),
});

const CompositeStepInput = builder.inputType("CompositeStepInput", {
  description: "One step of a composite: a registered operation it runs under a name of its own, optionally only under a flag value.",
  fields: (t) => ({
    name: t.string({ required: true, description: "Unique in the composite; not `in` or `out`, no `.`." }),
    operation: t.string({
      required: true,
      description: "The name of the registered operation the step runs (UNKNOWN_OPERATION when none has this name and version; NESTED_COMPOSITE when it is a composite).",
    }),
    operationVersion: t.string({ required: true, description: "The version of the operation the step runs." }),
    when: t.field({ type: StepConditionInput, description: "A conditional step: it runs only under this flag value." }),
  }),
});

const WireInput = builder.inputType("WireInput", {
  description: "from: `in.<composite input role>` or `<step name>.<output role>`; to: `<step name>.<input role>` or `out.<composite output role>`. Both ends hold the same artifact type.",
  fields: (t) => ({
    from: t.string({ required: true, description: "Where the artifacts come from: `in.<composite input role>` or `<step name>.<output role>`." }),
    to: t.string({ required: true, description: "Where they are delivered: `<step name>.<input role>` or `out.<composite output role>`." }),
  }),
});

const CompositeOutputRoleInput = builder.inputType("CompositeOutputRoleInput", {
  description: "An output role of a composite: it is required, and its lineage is composed from the steps' (no inferLineageFrom).",
  fields: (t) => ({
    role: t.string({ required: true, description: "The role's name: unique among the composite's output roles (DUPLICATE_ROLE), not starting with `$` (RESERVED_ROLE)." }),
    artifactType: t.string({ required: true, description: "The type of the artifacts in the role; the wires into it must carry the same type (TYPE_MISMATCH)." }),
  }),
});

const RegisterCompositeInput = builder.inputType("RegisterCompositeInput", {
  description: `A composite's definition. Its name, version, roles, artifact types, steps and flags are names: at most ${MAX_NAME_BYTES} bytes of UTF-8 each (longer: NAME_TOO_LONG).`,
  fields: (t) => ({
    name: t.string({ required: true, description: "The composite's name. Names and versions are shared with operations (NAME_TAKEN when an operation holds this pair)." }),
    version: t.string({
      required: true,
      description: "The composite's version. A name and version is immutable: the same definition again is a no-op, a different one IMMUTABLE_VERSION.",
    }),
    inputs: t.field({ type: [InputRoleInput], required: true, description: "The composite's input roles: what each run is given." }),
    outputs: t.field({
      type: [CompositeOutputRoleInput],
      required: true,
      description: "The composite's output roles, at least one (NO_OUTPUTS); each must be fed by a wire from a step (UNFED_OUTPUT).",
    }),
    steps: t.field({ type: [CompositeStepInput], required: true, description: "The steps, at least one (NO_STEPS); step names are unique (DUPLICATE_STEP)." }),
    wires: t.field({
      type: [WireInput],
      required: true,
      description:
        "How artifacts flow from the composite's inputs through the steps to its outputs. Every required input of every step must be fed (UNFED_INPUT); no step may feed itself (SELF_LOOP) or a cycle of steps (CYCLE).",
    }),
    flags: t.stringList({ description: "The flags conditional steps test (at most 10; every combination is checked for soundness)." }),
    intermediates: t.field({ type: IntermediatesEnum, required: true, description: "What the composite's runs keep of the artifacts its steps produce that are not its outputs." }),
    allowUnsound: t.boolean({ defaultValue: false, description: "Register even when the workflow-net check finds the definition unsound." }),
  }),
});

const CompositeStepRunInput = builder.inputType("CompositeStepRunInput", {
  description: "One step as it ran; its inputs follow from the wires (the composite's inputs and what earlier steps produced).",
  fields: (t) => ({
    step: t.string({
      required: true,
      description:
        "The name of a declared step (UNKNOWN_STEP), reported once (DUPLICATE_STEP), active under the run's flags (STEP_NOT_ACTIVE) and after every active step that feeds it (STEP_ORDER).",
    }),
    params: t.field({ type: "JSON", description: "The step's parameters, as recordExecution's `params`." }),
    outputs: t.field({ type: [RoleDraftsInput], required: true, description: "What the step produced, by output role of its operation, as recordExecution's `outputs`." }),
    lineage: t.field({ type: [ExplicitLineageInput], description: "Explicit mappings for the step's outputs, as recordExecution's `lineage`." }),
    status: t.field({ type: ExecutionStatusEnum, description: "Default COMPLETED." }),
    startedAt: t.field({ type: "DateTime", description: "When the step started; null: not known." }),
    endedAt: t.field({ type: "DateTime", description: "When the step ended; null: not known. Before startedAt is INVALID_ARGUMENT." }),
    pins: t.field({ type: PinsInput, description: "What a replay of the step must pin, as recordExecution's `pins`." }),
  }),
});

const RecordCompositeExecutionInput = builder.inputType("RecordCompositeExecutionInput", {
  description: "One run of a composite as a pipeline reports it: its inputs, the flag values it ran under and each step as it ran.",
  fields: (t) => ({
    composite: t.string({ required: true, description: "The registered composite's name (NOT_FOUND, `field: \"composite\"`, when none has this name and version)." }),
    compositeVersion: t.string({ required: true, description: "The composite's version." }),
    params: t.field({
      type: "JSON",
      description:
        'The run\'s parameters, stored with the composite\'s execution; its specId covers them with the flag values and the inputs. {"$artifact": "art_…"} anywhere inside records that artifact as an input in role `$config`, as in recordExecution.',
    }),
    flags: t.field({ type: "JSON", description: 'The value of each declared flag in this run, e.g. {"dryRun": true}; a flag left out is false.' }),
    inputs: t.field({
      type: [RoleArtifactsInput],
      required: true,
      description: "The composite's inputs by its input roles, checked like an operation's (ArtifactValidationError with `step` null); the wires take them to the steps.",
    }),
    steps: t.field({ type: [CompositeStepRunInput], required: true, description: "In the order they ran; a step's inputs follow from the wires." }),
    pipeline: t.string({ description: "With step: the composite run is this step of the pipeline (one step in the macro and micro graphs)." }),
    step: t.int({ description: "With pipeline: the step's number in the pipeline, a whole number ≥ 0. Give both or neither (INVALID_ARGUMENT)." }),
    agent: t.string({ description: "Also the agent of every step." }),
    pins: t.field({ type: PinsInput, description: "What a replay of the whole run must pin; each step gives its own in its `pins`." }),
    startedAt: t.field({ type: "DateTime", description: "Default: the earliest startedAt of its steps." }),
    endedAt: t.field({ type: "DateTime", description: "Default: the latest endedAt of its steps." }),
    idempotencyKey: t.string({
      description: "As recordExecution's: a retry with the same key and input is answered with the first run recorded (no second run); another input under the key is IDEMPOTENCY_KEY_REUSED.",
    }),
  }),
});

// --- the definition as registered ---

const StepConditionObject = builder.objectRef<NonNullable<CompositeStep["when"]>>("StepCondition").implement({
  description: "A step's condition: the step runs only when the flag has this value.",
  fields: (t) => ({
    flag: t.exposeString("flag", { description: "A flag the composite declares." }),
    equals: t.exposeBoolean("equals", { description: "The value the flag must have for the step to run." }),
  }),
});

const CompositeStepObject = builder.objectRef<CompositeStep>("CompositeStep").implement({
  description: "One step of a registered composite: its name and the operation it runs.",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The step's name, unique in the composite: wires name it, and its executions' `compositeStep`." }),
    operation: t.field({ type: OperationRef, description: "The registered operation the step runs (never a composite).", resolve: (step) => step.operationId }),
    when: t.field({ type: StepConditionObject, nullable: true, description: "The flag value the step runs under; null: it always runs.", resolve: (step) => step.when }),
  }),
});

const CompositeWireObject = builder.objectRef<Wire>("CompositeWire").implement({
  description: "A wire of a composite, as registered: artifacts flow from `from` to `to`.",
  fields: (t) => ({
    from: t.exposeString("from", { description: "`in.<composite input role>` or `<step name>.<output role>`." }),
    to: t.exposeString("to", { description: "`<step name>.<input role>` or `out.<composite output role>`." }),
  }),
});

const CompositeInputRoleObject = builder.objectRef<CompositeDefinition["inputs"][number]>("CompositeInputRole").implement({
  description: "An input role of a composite: what a run is given in it.",
  fields: (t) => ({
    role: t.exposeString("role", { description: "The role's name." }),
    artifactType: t.exposeString("artifactType", { description: "The type every artifact given in the role must have (ARTIFACT_TYPE_MISMATCH otherwise)." }),
    required: t.exposeBoolean("required", { description: "A run must give the role at least one artifact (REQUIRED_ROLE_MISSING otherwise)." }),
  }),
});

const CompositeOutputRoleObject = builder.objectRef<CompositeDefinition["outputs"][number]>("CompositeOutputRole").implement({
  description: "An output role of a composite, fed by the steps wired to it.",
  fields: (t) => ({
    role: t.exposeString("role", { description: "The role's name." }),
    artifactType: t.exposeString("artifactType", { description: "The type of the artifacts in the role." }),
  }),
});

const FlagValueObject = builder.objectRef<{ flag: string; value: boolean }>("FlagValue").implement({
  description: "A declared flag and its value.",
  fields: (t) => ({
    flag: t.exposeString("flag", { description: "The flag's name, as declared." }),
    value: t.exposeBoolean("value", { description: "Its value." }),
  }),
});

const PlaceTokensObject = builder.objectRef<PlaceTokens>("PlaceTokens").implement({
  description: "A place of the workflow net and the tokens it holds in a marking.",
  fields: (t) => ({
    place: t.exposeString("place", { description: "The place: `source`, `sink`, `<step>.<input role>`, `out.<output role>`, `<step>.ready` or `<step>.done`." }),
    tokens: t.exposeInt("tokens", { description: "The tokens in it, at least 1 (places without tokens are left out)." }),
  }),
});

const SoundnessWitnessObject = builder.objectRef<SoundnessWitness>("SoundnessWitness").implement({
  description: "How a soundness property fails: the transitions fired from the initial marking (`in`, step names, `out`) and the marking they reach.",
  fields: (t) => ({
    firingSequence: t.exposeStringList("firingSequence", { description: "The transitions fired, in order; the exploration is breadth first, so it is a shortest such sequence." }),
    marking: t.field({ type: [PlaceTokensObject], description: "The marking reached: every place that holds tokens.", resolve: (w) => w.marking }),
    leftoverPlaces: t.exposeStringList("leftoverPlaces", { description: "The marked places besides one token in the sink: what is left over, or stuck." }),
  }),
});

const CombinationSoundnessObject = builder.objectRef<CombinationSoundness>("FlagCombinationSoundness").implement({
  description:
    "The workflow net under one combination of flag values. Places: `source`, `sink`, `<step>.<input role>`, `out.<output role>` (and `<step>.ready` for a step with nothing to wait for); transitions: `in`, one per step, `out`.",
  fields: (t) => ({
    flags: t.field({ type: [FlagValueObject], description: "The combination: every declared flag with its value, in the order declared (empty without flags).", resolve: (c) => c.flags }),
    sound: t.exposeBoolean("sound", { description: "Option to complete, proper completion and no dead steps hold, and the exploration did not stop at the bound." }),
    inactiveSteps: t.exposeStringList("inactiveSteps", { description: "Conditional steps that do not run under these flags (left out of the net)." }),
    optionToComplete: t.exposeBoolean("optionToComplete", { description: "From every reachable marking, a marking with the sink marked is reachable." }),
    optionToCompleteWitness: t.field({ type: SoundnessWitnessObject, nullable: true, description: "A reachable marking the sink cannot be reached from (a deadlock when one exists), with the firing sequence to it.", resolve: (c) => c.optionToCompleteWitness }),
    properCompletion: t.exposeBoolean("properCompletion", { description: "Whenever the sink is marked, nothing else is." }),
    properCompletionWitness: t.field({ type: SoundnessWitnessObject, nullable: true, description: "A marking with the sink marked and tokens left over.", resolve: (c) => c.properCompletionWitness }),
    noDeadTransitions: t.exposeBoolean("noDeadTransitions", { description: "Every step of the net fires in some run." }),
    deadSteps: t.exposeStringList("deadSteps", { description: "The steps of the net that fire in no run (empty when noDeadTransitions)." }),
    markingsExplored: t.exposeInt("markingsExplored", {
      description: "The reachable markings explored for this combination: at most the report's `bound`, fewer once the budget over all combinations is spent.",
    }),
    boundHit: t.exposeBoolean("boundHit", { description: "The exploration stopped at the bound: the answer is about the explored part only, and the combination is not sound." }),
  }),
});

const WorkflowSoundnessObject = builder.objectRef<WorkflowSoundness>("WorkflowSoundness").implement({
  description: "Classical workflow-net soundness (van der Aalst) of a composite, for every combination of its flag values.",
  fields: (t) => ({
    sound: t.exposeBoolean("sound", { description: "Every combination sound (option to complete, proper completion, no dead steps) and fully explored." }),
    bound: t.exposeInt("bound", { description: "The most markings explored per combination." }),
    boundHit: t.exposeBoolean("boundHit", { description: "The exploration of some combination stopped at the bound (`sound` is then false)." }),
    combinations: t.field({
      type: [CombinationSoundnessObject],
      description: "One report per combination of flag values (one in all without flags): all false first, the first declared flag changing slowest.",
      resolve: (s) => s.combinations,
    }),
  }),
});

export const CompositeDefinitionRef = builder.loadableObjectRef<CompositeDefinition, string>("CompositeDefinition", {
  load: (ids: string[], ctx) => loadOrNotFound("composite", (keys) => ctx.services.composites.reader.definitionsByIds(keys as OperationId[]))(ids),
});

CompositeDefinitionRef.implement({
  description: "A registered composite: operations wired role to role, as registered. Its runs are executions of `operation` (kind COMPOSITE).",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The composite's name." }),
    version: t.exposeString("version", { description: "Its version: a name and version is registered once and never changes." }),
    operation: t.field({ type: OperationRef, description: "The operation the composite also is (kind COMPOSITE, the same id): its runs are executions of it.", resolve: (c) => c.id }),
    inputs: t.field({ type: [CompositeInputRoleObject], description: "The composite's input roles, in the order declared.", resolve: (c) => c.inputs }),
    outputs: t.field({ type: [CompositeOutputRoleObject], description: "The composite's output roles, in the order declared.", resolve: (c) => c.outputs }),
    steps: t.field({ type: [CompositeStepObject], description: "The steps, in the order declared.", resolve: (c) => c.steps }),
    wires: t.field({ type: [CompositeWireObject], description: "The wires, in the order declared.", resolve: (c) => c.wires }),
    flags: t.exposeStringList("flags", { description: "The flags its conditional steps test, in the order declared (empty: none)." }),
    intermediates: t.field({ type: IntermediatesEnum, description: "What its runs keep of their intermediates.", resolve: (c) => c.intermediates }),
    allowUnsound: t.exposeBoolean("allowUnsound", { description: "Registered with allowUnsound." }),
    sound: t.exposeBoolean("sound", { description: "What the workflow-net check said at registration." }),
    soundness: t.field({
      type: WorkflowSoundnessObject,
      description: "The workflow-net soundness of the definition, for every combination of its flag values, checked afresh on each read.",
      resolve: (c, _args, ctx) => ctx.services.composites.registry.soundnessOf(c),
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When the composite was registered." }),
  }),
});

// --- errors ---

builder.objectType(CompositeDeclarationError, {
  name: "CompositeDeclarationError",
  description: "COMPOSITE_DECLARATION: the composite definition breaks a registration rule (UNSOUND: the workflow-net check failed; `soundness` is the witness).",
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof CompositeDeclarationError,
  fields: (t) => ({
    rule: t.exposeString("rule", { description: "The rule broken, e.g. UNFED_INPUT, TYPE_MISMATCH, CYCLE, IMMUTABLE_VERSION, UNSOUND." }),
    step: t.exposeString("step", { nullable: true, description: "The offending step; null when the rule concerns none." }),
    role: t.exposeString("role", { nullable: true, description: "The offending role; null when the rule concerns none." }),
    wire: t.exposeString("wire", { nullable: true, description: "The offending wire, `from → to`." }),
    candidates: t.exposeStringList("candidates", {
      description: "What was considered or is involved: the declared roles, steps or flags, the steps of a cycle, the two artifact types of a mismatch, … (may be empty).",
    }),
    soundness: t.field({ type: WorkflowSoundnessObject, nullable: true, description: "With rule UNSOUND: the whole soundness report; null otherwise.", resolve: (e) => e.soundness }),
  }),
});

builder.objectType(CompositeExecutionError, {
  name: "CompositeExecutionError",
  description: "COMPOSITE_EXECUTION: the run does not fit the composite: an unknown, repeated or inactive step, a step reported before a step that feeds it, a bad flag.",
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof CompositeExecutionError,
  fields: (t) => ({
    rule: t.exposeString("rule", { description: "The rule broken, e.g. UNKNOWN_STEP, STEP_NOT_ACTIVE, STEP_ORDER, UNKNOWN_FLAG, SHORTCUT_LIMIT." }),
    step: t.exposeString("step", { nullable: true, description: "The offending step, as reported; null when the rule concerns none." }),
    candidates: t.exposeStringList("candidates", { description: "What was considered or is involved: the declared steps or flags, the steps to report first, … (may be empty)." }),
  }),
});

// --- what a run adds to Execution and Operation ---

const compositeRuns = createContextCache((ctx: GraphQLContext) => new DataLoader<RunId, CompositeRunRecord | null>((ids) => ctx.services.composites.reader.runsByIds(ids)));
const compositeStepRuns = createContextCache((ctx: GraphQLContext) => new DataLoader<RunId, CompositeStepRunRecord | null>((ids) => ctx.services.composites.reader.stepRunsByIds(ids)));
const childExecutions = createContextCache((ctx: GraphQLContext) => new DataLoader<RunId, ExecutionRecord[]>((ids) => ctx.services.composites.reader.childrenOf(ids)));

const CompositeRunObject = builder.objectRef<CompositeRunRecord>("CompositeRun").implement({
  description: "What a composite execution was a run of: the composite, the flag values it ran under, the intermediates mode it was recorded in.",
  fields: (t) => ({
    composite: t.field({ type: CompositeDefinitionRef, description: "The composite it was a run of.", resolve: (run) => run.compositeId }),
    flags: t.field({
      type: [FlagValueObject],
      description: "Every declared flag with its value in this run (a flag the recording left out is false).",
      resolve: (run) => Object.entries(run.flags).map(([flag, value]) => ({ flag, value })),
    }),
    intermediates: t.field({ type: IntermediatesEnum, description: "The intermediates mode it was recorded in (its composite's).", resolve: (run) => run.intermediates }),
  }),
});

builder.objectFields(ExecutionRef, (t) => ({
  children: t.field({
    type: [ExecutionRef],
    description: "The executions that ran inside this one (their `parent`): a composite run's steps, in the order they ran.",
    resolve: (execution, _args, ctx) => childExecutions(ctx).load(execution.runId),
  }),
  compositeRun: t.field({
    type: CompositeRunObject,
    nullable: true,
    description: "When this execution is a composite run: its composite, flags and intermediates mode.",
    resolve: (execution, _args, ctx) => compositeRuns(ctx).load(execution.runId),
  }),
  compositeStep: t.string({
    nullable: true,
    description: "When this execution ran as a step of a composite run (its `parent`): the step's name.",
    resolve: async (execution, _args, ctx) => (await compositeStepRuns(ctx).load(execution.runId))?.step ?? null,
  }),
}));

builder.objectFields(OperationRef, (t) => ({
  composite: t.field({
    type: CompositeDefinitionRef,
    nullable: true,
    description: "The composite's wiring, when this operation is a composite (kind COMPOSITE).",
    resolve: (operation) => (operation.kind === "COMPOSITE" ? operation.id : null),
  }),
}));

// --- mutations and queries ---

interface StepUnpaired extends ExecutionLinkRecord {
  step: string;
}

const UnpairedStepInputObject = builder.objectRef<StepUnpaired>("UnpairedStepInput").implement({
  description: "An input of a step a groupBy operation paired with nothing.",
  fields: (t) => ({
    step: t.exposeString("step", { description: "The step whose input it is." }),
    role: t.exposeString("role", { description: "The step's input role it was given in." }),
    position: t.exposeInt("position", { description: "Its index within that role." }),
    artifact: t.field({ type: ArtifactRef, description: "The input artifact.", resolve: (link) => link.artifactId }),
  }),
});

/** The answer of recordCompositeExecution: from the recording, or (a retry with its idempotency key) the first run's ids and counts. */
interface CompositeAnswer {
  execution: ExecutionRecord | string;
  steps: (ExecutionRecord | string)[];
  shortcutEdgeCount: number;
  edgeCount: number;
  unpaired: (ExecutionLinkRecord & { step: string })[];
}

const RecordCompositeExecutionPayload = builder.objectRef<CompositeAnswer>("RecordCompositeExecutionPayload").implement({
  description:
    "A recorded composite run: the composite's execution, each step's, and the edges recorded. A retry under an idempotencyKey already used answers the run first recorded.",
  fields: (t) => ({
    execution: t.field({ type: ExecutionRef, description: "The composite's execution: its inputs, its outputs and its shortcut edges.", resolve: (r) => r.execution }),
    steps: t.field({ type: [ExecutionRef], description: "Each step's execution, in the order they ran (parent: the composite's).", resolve: (r) => r.steps }),
    shortcutEdgeCount: t.int({ description: "Step-boundary shortcut edges recorded (the composite's run).", resolve: (r) => r.shortcutEdgeCount }),
    edgeCount: t.int({ description: "Every lineage edge recorded: shortcuts and the internal edges the intermediates mode keeps.", resolve: (r) => r.edgeCount }),
    unpaired: t.field({
      type: [UnpairedStepInputObject],
      description: "Inputs of steps whose groupBy paired them with nothing.",
      resolve: (r) => r.unpaired,
    }),
  }),
});

builder.mutationFields((t) => ({
  registerComposite: t.field({
    type: CompositeDefinitionRef,
    description:
      "Registers a composite after checking its wiring and its soundness as a workflow net. The same definition again is a no-op; a different one under the same name and version is an error. Needs the admin scope.",
    args: { input: t.arg({ type: RegisterCompositeInput, required: true, description: "The composite's definition." }) },
    errors: {
      types: [CompositeDeclarationError],
      directResult: true,
      union: {
        name: "RegisterCompositeResult",
        description: "What registerComposite answers: the composite (registered now, or before with the same definition), or the CompositeDeclarationError naming the rule it breaks.",
      },
    },
    resolve: (_root, { input }, ctx) =>
      ctx.services.composites.registry.register({
        name: input.name,
        version: input.version,
        inputs: input.inputs.map((r) => ({ role: r.role, artifactType: r.artifactType, required: r.required })),
        outputs: input.outputs.map((r) => ({ role: r.role, artifactType: r.artifactType })),
        steps: input.steps.map((s) => ({ name: s.name, operation: s.operation, operationVersion: s.operationVersion, when: s.when ?? null })),
        wires: input.wires.map((w) => ({ from: w.from, to: w.to })),
        flags: input.flags ?? [],
        intermediates: input.intermediates,
        allowUnsound: input.allowUnsound,
      }),
  }),
  recordCompositeExecution: t.field({
    type: RecordCompositeExecutionPayload,
    authScopes: { write: true },
    description:
      "Records one run of a composite in one transaction: its execution, each step as an execution inside it, internal and shortcut edges per the composite's intermediates mode. A step that fails validation rejects the whole run; its error names the step (`step`) and nothing is written. Needs the write scope.",
    args: { input: t.arg({ type: RecordCompositeExecutionInput, required: true, description: "The run as it happened." }) },
    errors: {
      types: [ArtifactValidationError, LineageCompletenessError, LineageIntegrityError, CompositeExecutionError],
      directResult: true,
      union: {
        name: "RecordCompositeExecutionResult",
        description:
          "What recordCompositeExecution answers: the payload, or the typed error that rejected the run, nothing written. Other failures (NOT_FOUND, INVALID_ARGUMENT, …) are GraphQL errors.",
      },
    },
    resolve: async (_root, { input }, ctx) => {
      const recorded = await ctx.services.composites.recorder.record({
        ...input,
        inputs: input.inputs.map((role) => ({ role: role.role, artifactIds: role.artifactIds.map(String) })),
        steps: input.steps.map((step) => ({ ...step, lineage: step.lineage?.map((entry) => ({ output: entry.output, sources: entry.sources.map(String), kind: entry.kind })) })),
      });
      if ("replayOf" in recorded) return { execution: recorded.replayOf, steps: recorded.steps.map((s) => s.runId), shortcutEdgeCount: recorded.shortcutEdgeCount, edgeCount: recorded.edgeCount, unpaired: recorded.unpaired };
      // The response reads back what was just written: answer it from the recording, not the database.
      const all = [recorded.execution, ...recorded.steps.map((s) => s.recorded)];
      for (const { execution, links, artifacts } of all) {
        ExecutionRef.getDataloader(ctx).prime(execution.runId, execution);
        executionLinks(ctx, "CONSUMED").prime(execution.runId, links.consumed);
        executionLinks(ctx, "PRODUCED").prime(execution.runId, links.produced);
        for (const artifact of artifacts) ArtifactRef.getDataloader(ctx).prime(artifact.id, artifact);
      }
      childExecutions(ctx).prime(recorded.execution.execution.runId, recorded.steps.map((s) => s.recorded.execution));
      recorded.steps.forEach((s, position) =>
        compositeStepRuns(ctx).prime(s.recorded.execution.runId, { runId: s.recorded.execution.runId, compositeRunId: recorded.execution.execution.runId, step: s.step, position }),
      );
      return {
        execution: recorded.execution.execution,
        steps: recorded.steps.map((s) => s.recorded.execution),
        shortcutEdgeCount: recorded.execution.edges.length,
        edgeCount: recorded.execution.edges.length + recorded.steps.reduce((n, s) => n + s.recorded.edges.length, 0),
        unpaired: recorded.steps.flatMap((s) => s.recorded.unpaired.map((link) => ({ ...link, step: s.step }))),
      };
    },
  }),
}));

builder.queryFields((t) => ({
  compositeDefinition: t.field({
    type: CompositeDefinitionRef,
    description: "A registered composite's wiring, as registered. Unknown ones are a NOT_FOUND error.",
    args: { name: t.arg.string({ required: true, description: "The composite's name." }), version: t.arg.string({ required: true, description: "The composite's version." }) },
    resolve: async (_root, args, ctx) => {
      const definition = await ctx.services.composites.registry.find(args.name, args.version);
      if (!definition) throw new NotFoundError("composite", `${args.name}@${args.version}`, "name");
      return definition;
    },
  }),
  workflowSoundness: t.field({
    type: WorkflowSoundnessObject,
    description: "The workflow-net soundness of a registered composite, for every combination of its flag values, with witnesses. Unknown composites are a NOT_FOUND error.",
    args: { name: t.arg.string({ required: true, description: "The composite's name." }), version: t.arg.string({ required: true, description: "The composite's version." }) },
    resolve: async (_root, args, ctx) => {
      const definition = await ctx.services.composites.registry.find(args.name, args.version);
      if (!definition) throw new NotFoundError("composite", `${args.name}@${args.version}`, "name");
      return ctx.services.composites.registry.soundnessOf(definition);
    },
  }),
}));
