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
  fields: (t) => ({ flag: t.string({ required: true }), equals: t.boolean({ required: true }) }),
});

const CompositeStepInput = builder.inputType("CompositeStepInput", {
  fields: (t) => ({
    name: t.string({ required: true, description: "Unique in the composite; not `in` or `out`, no `.`." }),
    operation: t.string({ required: true }),
    operationVersion: t.string({ required: true }),
    when: t.field({ type: StepConditionInput, description: "A conditional step: it runs only under this flag value." }),
  }),
});

const WireInput = builder.inputType("WireInput", {
  description: "from: `in.<composite input role>` or `<step name>.<output role>`; to: `<step name>.<input role>` or `out.<composite output role>`. Both ends hold the same artifact type.",
  fields: (t) => ({ from: t.string({ required: true }), to: t.string({ required: true }) }),
});

const CompositeOutputRoleInput = builder.inputType("CompositeOutputRoleInput", {
  fields: (t) => ({ role: t.string({ required: true }), artifactType: t.string({ required: true }) }),
});

const RegisterCompositeInput = builder.inputType("RegisterCompositeInput", {
  description: `A composite's definition. Its name, version, roles, artifact types, steps and flags are names: at most ${MAX_NAME_BYTES} bytes of UTF-8 each (longer: NAME_TOO_LONG).`,
  fields: (t) => ({
    name: t.string({ required: true }),
    version: t.string({ required: true }),
    inputs: t.field({ type: [InputRoleInput], required: true }),
    outputs: t.field({ type: [CompositeOutputRoleInput], required: true }),
    steps: t.field({ type: [CompositeStepInput], required: true }),
    wires: t.field({ type: [WireInput], required: true }),
    flags: t.stringList({ description: "The flags conditional steps test (at most 10; every combination is checked for soundness)." }),
    intermediates: t.field({ type: IntermediatesEnum, required: true }),
    allowUnsound: t.boolean({ defaultValue: false, description: "Register even when the workflow-net check finds the definition unsound." }),
  }),
});

const CompositeStepRunInput = builder.inputType("CompositeStepRunInput", {
  description: "One step as it ran; its inputs follow from the wires (the composite's inputs and what earlier steps produced).",
  fields: (t) => ({
    step: t.string({ required: true }),
    params: t.field({ type: "JSON" }),
    outputs: t.field({ type: [RoleDraftsInput], required: true }),
    lineage: t.field({ type: [ExplicitLineageInput] }),
    status: t.field({ type: ExecutionStatusEnum, description: "Default COMPLETED." }),
    startedAt: t.field({ type: "DateTime" }),
    endedAt: t.field({ type: "DateTime" }),
    pins: t.field({ type: PinsInput }),
  }),
});

const RecordCompositeExecutionInput = builder.inputType("RecordCompositeExecutionInput", {
  fields: (t) => ({
    composite: t.string({ required: true }),
    compositeVersion: t.string({ required: true }),
    params: t.field({ type: "JSON" }),
    flags: t.field({ type: "JSON", description: 'The value of each declared flag in this run, e.g. {"dryRun": true}; a flag left out is false.' }),
    inputs: t.field({ type: [RoleArtifactsInput], required: true }),
    steps: t.field({ type: [CompositeStepRunInput], required: true, description: "In the order they ran; a step's inputs follow from the wires." }),
    pipeline: t.string({ description: "With step: the composite run is this step of the pipeline (one step in the macro and micro graphs)." }),
    step: t.int(),
    agent: t.string({ description: "Also the agent of every step." }),
    pins: t.field({ type: PinsInput }),
    startedAt: t.field({ type: "DateTime", description: "Default: the earliest startedAt of its steps." }),
    endedAt: t.field({ type: "DateTime", description: "Default: the latest endedAt of its steps." }),
    idempotencyKey: t.string({
      description: "As recordExecution's: a retry with the same key and input is answered with the first run recorded (no second run); another input under the key is IDEMPOTENCY_KEY_REUSED.",
    }),
  }),
});

// --- the definition as registered ---

const StepConditionObject = builder.objectRef<NonNullable<CompositeStep["when"]>>("StepCondition").implement({
  fields: (t) => ({ flag: t.exposeString("flag"), equals: t.exposeBoolean("equals") }),
});

const CompositeStepObject = builder.objectRef<CompositeStep>("CompositeStep").implement({
  fields: (t) => ({
    name: t.exposeString("name"),
    operation: t.field({ type: OperationRef, resolve: (step) => step.operationId }),
    when: t.field({ type: StepConditionObject, nullable: true, resolve: (step) => step.when }),
  }),
});

const CompositeWireObject = builder.objectRef<Wire>("CompositeWire").implement({
  fields: (t) => ({ from: t.exposeString("from"), to: t.exposeString("to") }),
});

const CompositeInputRoleObject = builder.objectRef<CompositeDefinition["inputs"][number]>("CompositeInputRole").implement({
  fields: (t) => ({ role: t.exposeString("role"), artifactType: t.exposeString("artifactType"), required: t.exposeBoolean("required") }),
});

const CompositeOutputRoleObject = builder.objectRef<CompositeDefinition["outputs"][number]>("CompositeOutputRole").implement({
  fields: (t) => ({ role: t.exposeString("role"), artifactType: t.exposeString("artifactType") }),
});

const FlagValueObject = builder.objectRef<{ flag: string; value: boolean }>("FlagValue").implement({
  fields: (t) => ({ flag: t.exposeString("flag"), value: t.exposeBoolean("value") }),
});

const PlaceTokensObject = builder.objectRef<PlaceTokens>("PlaceTokens").implement({
  fields: (t) => ({ place: t.exposeString("place"), tokens: t.exposeInt("tokens") }),
});

const SoundnessWitnessObject = builder.objectRef<SoundnessWitness>("SoundnessWitness").implement({
  description: "How a soundness property fails: the transitions fired from the initial marking (`in`, step names, `out`) and the marking they reach.",
  fields: (t) => ({
    firingSequence: t.exposeStringList("firingSequence"),
    marking: t.field({ type: [PlaceTokensObject], resolve: (w) => w.marking }),
    leftoverPlaces: t.exposeStringList("leftoverPlaces", { description: "The marked places besides one token in the sink: what is left over, or stuck." }),
  }),
});

const CombinationSoundnessObject = builder.objectRef<CombinationSoundness>("FlagCombinationSoundness").implement({
  description:
    "The workflow net under one combination of flag values. Places: `source`, `sink`, `<step>.<input role>`, `out.<output role>` (and `<step>.ready` for a step with nothing to wait for); transitions: `in`, one per step, `out`.",
  fields: (t) => ({
    flags: t.field({ type: [FlagValueObject], resolve: (c) => c.flags }),
    sound: t.exposeBoolean("sound"),
    inactiveSteps: t.exposeStringList("inactiveSteps", { description: "Conditional steps that do not run under these flags (left out of the net)." }),
    optionToComplete: t.exposeBoolean("optionToComplete", { description: "From every reachable marking, a marking with the sink marked is reachable." }),
    optionToCompleteWitness: t.field({ type: SoundnessWitnessObject, nullable: true, description: "A reachable marking the sink cannot be reached from (a deadlock when one exists), with the firing sequence to it.", resolve: (c) => c.optionToCompleteWitness }),
    properCompletion: t.exposeBoolean("properCompletion", { description: "Whenever the sink is marked, nothing else is." }),
    properCompletionWitness: t.field({ type: SoundnessWitnessObject, nullable: true, description: "A marking with the sink marked and tokens left over.", resolve: (c) => c.properCompletionWitness }),
    noDeadTransitions: t.exposeBoolean("noDeadTransitions", { description: "Every step of the net fires in some run." }),
    deadSteps: t.exposeStringList("deadSteps"),
    markingsExplored: t.exposeInt("markingsExplored"),
    boundHit: t.exposeBoolean("boundHit", { description: "The exploration stopped at the bound: the answer is about the explored part only, and the combination is not sound." }),
  }),
});

const WorkflowSoundnessObject = builder.objectRef<WorkflowSoundness>("WorkflowSoundness").implement({
  description: "Classical workflow-net soundness (van der Aalst) of a composite, for every combination of its flag values.",
  fields: (t) => ({
    sound: t.exposeBoolean("sound", { description: "Every combination sound (option to complete, proper completion, no dead steps) and fully explored." }),
    bound: t.exposeInt("bound", { description: "The most markings explored per combination." }),
    boundHit: t.exposeBoolean("boundHit"),
    combinations: t.field({ type: [CombinationSoundnessObject], resolve: (s) => s.combinations }),
  }),
});

export const CompositeDefinitionRef = builder.loadableObjectRef<CompositeDefinition, string>("CompositeDefinition", {
  load: (ids: string[], ctx) => loadOrNotFound("composite", (keys) => ctx.services.composites.reader.definitionsByIds(keys as OperationId[]))(ids),
});

CompositeDefinitionRef.implement({
  description: "A registered composite: operations wired role to role, as registered. Its runs are executions of `operation` (kind COMPOSITE).",
  fields: (t) => ({
    name: t.exposeString("name"),
    version: t.exposeString("version"),
    operation: t.field({ type: OperationRef, resolve: (c) => c.id }),
    inputs: t.field({ type: [CompositeInputRoleObject], resolve: (c) => c.inputs }),
    outputs: t.field({ type: [CompositeOutputRoleObject], resolve: (c) => c.outputs }),
    steps: t.field({ type: [CompositeStepObject], resolve: (c) => c.steps }),
    wires: t.field({ type: [CompositeWireObject], resolve: (c) => c.wires }),
    flags: t.exposeStringList("flags"),
    intermediates: t.field({ type: IntermediatesEnum, resolve: (c) => c.intermediates }),
    allowUnsound: t.exposeBoolean("allowUnsound", { description: "Registered with allowUnsound." }),
    sound: t.exposeBoolean("sound", { description: "What the workflow-net check said at registration." }),
    soundness: t.field({ type: WorkflowSoundnessObject, resolve: (c, _args, ctx) => ctx.services.composites.registry.soundnessOf(c) }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
  }),
});

// --- errors ---

builder.objectType(CompositeDeclarationError, {
  name: "CompositeDeclarationError",
  description: "COMPOSITE_DECLARATION: the composite definition breaks a registration rule (UNSOUND: the workflow-net check failed; `soundness` is the witness).",
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof CompositeDeclarationError,
  fields: (t) => ({
    rule: t.exposeString("rule"),
    step: t.exposeString("step", { nullable: true }),
    role: t.exposeString("role", { nullable: true }),
    wire: t.exposeString("wire", { nullable: true, description: "The offending wire, `from → to`." }),
    candidates: t.exposeStringList("candidates"),
    soundness: t.field({ type: WorkflowSoundnessObject, nullable: true, resolve: (e) => e.soundness }),
  }),
});

builder.objectType(CompositeExecutionError, {
  name: "CompositeExecutionError",
  description: "COMPOSITE_EXECUTION: the run does not fit the composite: an unknown, repeated or inactive step, a step reported before a step that feeds it, a bad flag.",
  interfaces: [ErrorInterface],
  isTypeOf: (value) => value instanceof CompositeExecutionError,
  fields: (t) => ({
    rule: t.exposeString("rule"),
    step: t.exposeString("step", { nullable: true }),
    candidates: t.exposeStringList("candidates"),
  }),
});

// --- what a run adds to Execution and Operation ---

const compositeRuns = createContextCache((ctx: GraphQLContext) => new DataLoader<RunId, CompositeRunRecord | null>((ids) => ctx.services.composites.reader.runsByIds(ids)));
const compositeStepRuns = createContextCache((ctx: GraphQLContext) => new DataLoader<RunId, CompositeStepRunRecord | null>((ids) => ctx.services.composites.reader.stepRunsByIds(ids)));
const childExecutions = createContextCache((ctx: GraphQLContext) => new DataLoader<RunId, ExecutionRecord[]>((ids) => ctx.services.composites.reader.childrenOf(ids)));

const CompositeRunObject = builder.objectRef<CompositeRunRecord>("CompositeRun").implement({
  description: "What a composite execution was a run of: the composite, the flag values it ran under, the intermediates mode it was recorded in.",
  fields: (t) => ({
    composite: t.field({ type: CompositeDefinitionRef, resolve: (run) => run.compositeId }),
    flags: t.field({ type: [FlagValueObject], resolve: (run) => Object.entries(run.flags).map(([flag, value]) => ({ flag, value })) }),
    intermediates: t.field({ type: IntermediatesEnum, resolve: (run) => run.intermediates }),
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
    step: t.exposeString("step"),
    role: t.exposeString("role"),
    position: t.exposeInt("position"),
    artifact: t.field({ type: ArtifactRef, resolve: (link) => link.artifactId }),
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
      "Registers a composite after checking its wiring and its soundness as a workflow net. The same definition again is a no-op; a different one under the same name and version is an error.",
    args: { input: t.arg({ type: RegisterCompositeInput, required: true }) },
    errors: { types: [CompositeDeclarationError], directResult: true, union: { name: "RegisterCompositeResult" } },
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
      "Records one run of a composite in one transaction: its execution, each step as an execution inside it, internal and shortcut edges per the composite's intermediates mode. A step that fails validation rejects the whole run; its error names the step (`step`) and nothing is written.",
    args: { input: t.arg({ type: RecordCompositeExecutionInput, required: true }) },
    errors: {
      types: [ArtifactValidationError, LineageCompletenessError, LineageIntegrityError, CompositeExecutionError],
      directResult: true,
      union: { name: "RecordCompositeExecutionResult" },
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
    args: { name: t.arg.string({ required: true }), version: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const definition = await ctx.services.composites.registry.find(args.name, args.version);
      if (!definition) throw new NotFoundError("composite", `${args.name}@${args.version}`, "name");
      return definition;
    },
  }),
  workflowSoundness: t.field({
    type: WorkflowSoundnessObject,
    description: "The workflow-net soundness of a registered composite, for every combination of its flag values, with witnesses. Unknown composites are a NOT_FOUND error.",
    args: { name: t.arg.string({ required: true }), version: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const definition = await ctx.services.composites.registry.find(args.name, args.version);
      if (!definition) throw new NotFoundError("composite", `${args.name}@${args.version}`, "name");
      return ctx.services.composites.registry.soundnessOf(definition);
    },
  }),
}));
