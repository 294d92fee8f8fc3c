import { purposesOf } from "../auth";
import { REQUEST_LIMITS } from "../limits/request-limits";
import { InvalidArgumentError } from "../services/errors";
import { MAX_NAME_BYTES } from "../services/safe-text";
import { type RecordedExecution, type RecordExecutionRequest, type ReplayedExecution, yieldToEventLoop } from "../services/recording";
import { builder } from "./builder";
import type { GraphQLContext } from "./context";
import type { ExecutionLinkRecord, ExecutionRecord } from "../services/records";
import { ArtifactValidationError, LineageCompletenessError, LineageIntegrityError, OperationDeclarationError } from "./errors";
import { ArtifactRef } from "./artifact";
import { executionLinks, ExecutionRef, ExecutionStatusEnum } from "./execution";
import { GroupByEnum, OperationKindEnum, OperationRef } from "./operation";
import { SENSITIVE } from "./sensitive";

const LineageSourceInput = builder.inputType("LineageSourceInput", {
  description: "Exactly one of the two. {inputs: []} declares a generative output (an orphan).",
  fields: (t) => ({
    inputs: t.stringList({ description: "Input roles whose artifacts are stem-matched against this output's. With groupBy ZIP, only the first (the primary role) is searched." }),
    outputs: t.stringList({ description: "Other output roles this output derives from (output-to-output)." }),
  }),
});

export const InputRoleInput = builder.inputType("InputRoleInput", {
  description: "An input role of an operation or a composite: a name, unique among the input roles (DUPLICATE_ROLE), and the type of the artifacts given in it.",
  fields: (t) => ({
    role: t.string({ required: true, description: "Role names starting with `$` are reserved." }),
    artifactType: t.string({ required: true, description: "The type every artifact given in the role must have (ARTIFACT_TYPE_MISMATCH otherwise)." }),
    required: t.boolean({ defaultValue: true, description: "An execution must give the role at least one artifact." }),
  }),
});

const OutputRoleInput = builder.inputType("OutputRoleInput", {
  description: "An output role of an operation: a name, unique among the output roles (DUPLICATE_ROLE), the type of what it holds and where its lineage comes from.",
  fields: (t) => ({
    role: t.string({ required: true, description: "Role names starting with `$` are reserved." }),
    artifactType: t.string({ required: true, description: "The type of the artifacts recorded in the role; with an artifact's content hash it makes the artifact's id." }),
    required: t.boolean({ defaultValue: true, description: "A COMPLETED execution must report at least one artifact in the role (MISSING_OUTPUT_ROLE)." }),
    inferLineageFrom: t.field({
      type: LineageSourceInput,
      description:
        "Required for CREATOR operations. A CURATOR may omit it: the role is a passthrough, and each of its outputs must be one of the execution's inputs (NOT_PASSTHROUGH).",
    }),
  }),
});

const RegisterOperationInput = builder.inputType("RegisterOperationInput", {
  description: `An operation's declaration. Its name, version, roles and artifact types are names: at most ${MAX_NAME_BYTES} bytes of UTF-8 each (longer: NAME_TOO_LONG).`,
  fields: (t) => ({
    name: t.string({ required: true, description: "The operation's name (EMPTY_NAME when blank)." }),
    version: t.string({
      required: true,
      description: "The operation's version (EMPTY_VERSION when blank). A name and version is immutable: the same declaration again is a no-op, a different one IMMUTABLE_VERSION.",
    }),
    kind: t.field({ type: OperationKindEnum, required: true, description: "CREATOR or CURATOR. COMPOSITE is refused (COMPOSITE_KIND): composites are registered with registerComposite." }),
    inputs: t.field({ type: [InputRoleInput], required: true, description: "The input roles: what an execution uses." }),
    outputs: t.field({
      type: [OutputRoleInput],
      required: true,
      description: "The output roles: what an execution produces. A CREATOR declares inferLineageFrom on each (LINEAGE_DECLARATION_REQUIRED otherwise).",
    }),
    groupBy: t.field({
      type: GroupByEnum,
      description: "How inputs are paired across roles; omitted: no pairing. ZIP and CROSS_PRODUCT need at least two input roles, LINEAGE exactly two (GROUP_BY_NEEDS_ROLES).",
    }),
    businessDateParam: t.string({
      description:
        "The parameter whose value is a run's business date — the date its figures are as of (a date YYYY-MM-DD, or a date-time whose date is taken as written). Evidence packages select versions by it (`businessDate`). A run whose value is no date is refused.",
    }),
  }),
});

const DatasetVersionInput = builder.inputType("DatasetVersionInput", {
  description: `A version of a dataset (OpenLineage's namespace and name; version null: the dataset itself, unversioned). Each at most ${MAX_NAME_BYTES} bytes of UTF-8.`,
  fields: (t) => ({
    namespace: t.string({ required: true, description: "Where the dataset lives, as OpenLineage names it, e.g. `delta://lake`." }),
    name: t.string({ required: true, description: "The dataset's name within its namespace, e.g. `risk.exposure_daily`." }),
    version: t.string({ description: "The version this artifact is; null: the dataset itself, unversioned." }),
  }),
});

const ArtifactDraftInput = builder.inputType("ArtifactDraftInput", {
  description:
    "An artifact an execution produced, as reported. Its id comes from its role's artifact type and its content hash, so the same content of the same type is one artifact, never modified once stored.",
  fields: (t) => ({
    dataset: t.field({
      type: DatasetVersionInput,
      description: "The dataset this output is a version of: it is then listed among the dataset's versions, takes the tags on the dataset's columns, and evidence packages can select it by dataset name, as of an instant or a business date.",
    }),
    originalName: t.string({ required: true, description: "The file or object name; stem matching reads it." }),
    contentHash: t.string({
      required: true,
      description:
        "`<algorithm>:<digest>`: sha256, sha512, sha384, sha1, md5 or blake3 with a hex digest of that algorithm's length, git:<40 or 64 hex>, or etag:<etag>. " +
        "Hex digests are stored lower-case. With the role's artifact type it makes the artifact id. Anything else is INVALID_CONTENT_HASH.",
    }),
    metadata: t.field({
      type: "JSON",
      description: 'Free JSON. {"$artifact": "art_…"} anywhere inside makes this artifact a config referencing that one (a CONFIG_REFERENCE edge referenced → this artifact).',
    }),
    subjectKeys: t.stringList({
      extensions: SENSITIVE,
      description:
        "The data subjects whose records this artifact holds (erasure plans start from them). Stored only as keyed hashes (HMAC, PROVGRAPH_ERASURE_SECRET), never as given; a subject on the suppression list refuses the recording (SUBJECT_SUPPRESSED). At most 1,000.",
    }),
  }),
});

export const RoleArtifactsInput = builder.inputType("RoleArtifactsInput", {
  description: "The stored artifacts an execution used in one input role. A role listed twice is one role (positions continue); an empty role is the same as an omitted one.",
  fields: (t) => ({
    role: t.string({ required: true, description: "A declared input role (UNDECLARED_INPUT_ROLE otherwise)." }),
    artifactIds: t.idList({
      required: true,
      description:
        "The artifacts' ids (art_…), each stored: a malformed one is INVALID_ID, an unknown one NOT_FOUND, one listed twice in the role DUPLICATE_INPUT. Their order is recorded as positions; it matters only for groupBy ZIP.",
    }),
  }),
});

export const RoleDraftsInput = builder.inputType("RoleDraftsInput", {
  description: "The artifacts an execution produced in one output role.",
  fields: (t) => ({
    role: t.string({ required: true, description: "A declared output role (UNDECLARED_OUTPUT_ROLE otherwise)." }),
    artifacts: t.field({ type: [ArtifactDraftInput], required: true, description: "The artifacts, in order; two with the same content hash in one role are DUPLICATE_OUTPUT." }),
  }),
});

const ExplicitLineageKindEnum = builder.enumType("ExplicitLineageKind", {
  description: "How the sources of an explicit mapping explain its output.",
  values: {
    JOINT: { description: "The sources are one derivation: several sources are jointly necessary (CO_INPUT edges sharing one groupId)." },
    INDEPENDENT: { description: "Each source alone explains the output: one derivation (and groupId) per source." },
  },
});

export const ExplicitLineageInput = builder.inputType("ExplicitLineageInput", {
  description: "An explicit mapping, bypassing stem inference. A source may appear once (DUPLICATE_SOURCE); outputs may not derive from each other in a cycle.",
  fields: (t) => ({
    output: t.string({ required: true, description: "An output draft's originalName." }),
    sources: t.idList({ required: true, description: "Input artifact ids, or output drafts (originalName or id)." }),
    kind: t.field({ type: ExplicitLineageKindEnum, defaultValue: "JOINT", description: "JOINT (default) or INDEPENDENT; with one source they are the same." }),
  }),
});

export const PinsInput = builder.inputType("PinsInput", {
  description: "What a replay must pin.",
  fields: (t) => ({
    inputVersions: t.field({
      type: "JSON",
      description: "The versions of the inputs the run read, as free JSON stored as given. Evidence packages count a run that used no stored artifact and gives none as MISSING_INPUT_VERSION.",
    }),
    codeVersion: t.string({ description: "The version of the code that ran, e.g. its git commit." }),
    imageDigest: t.string({
      description:
        "The image that ran, by content digest: `sha256:` and 64 lower-case hex digits, optionally after `name@`. Stored as given; evidence packages report a tag as IMAGE_NOT_DIGEST and none as MISSING_IMAGE_DIGEST.",
    }),
    deterministic: t.boolean({
      description: "Whether running it again on the same inputs gives the same outputs. Evidence packages report false as NON_DETERMINISTIC and null (not given) as DETERMINISM_UNKNOWN.",
    }),
  }),
});

const PrivacyCostInput = builder.inputType("PrivacyCostInput", {
  description: "What a differentially private release spends: ε (> 0), δ (0 ≤ δ < 1, default 0) and the mechanism (laplace, gaussian, …).",
  fields: (t) => ({
    epsilon: t.float({ required: true, description: "ε spent: above 0 and at most 1,000,000 (INVALID_ARGUMENT otherwise)." }),
    delta: t.float({ description: "δ spent: from 0 up to, not including, 1 (INVALID_ARGUMENT otherwise). Default 0." }),
    mechanism: t.string({ required: true, description: "The mechanism that spent it, e.g. laplace or gaussian: 1 to 200 characters." }),
  }),
});

const RecordExecutionInput = builder.inputType("RecordExecutionInput", {
  description: `One execution as a pipeline reports it. The operation, its version, the roles, the pipeline and the datasets' names are names: at most ${MAX_NAME_BYTES} bytes of UTF-8 each (longer: INVALID_ARGUMENT naming the field). An output's originalName is free text, without that bound.`,
  fields: (t) => ({
    operation: t.string({
      required: true,
      description: "The registered operation's name (NOT_FOUND, `field: \"operation\"`, when none has this name and version). A composite is INVALID_ARGUMENT: record its runs with recordCompositeExecution.",
    }),
    operationVersion: t.string({ required: true, description: "The operation's version." }),
    params: t.field({
      type: "JSON",
      description:
        'Parameters. {"$artifact": "art_…"} anywhere inside references a stored artifact: the execution used it, recorded as an input in role `$config` (no lineage edge).',
    }),
    inputs: t.field({ type: [RoleArtifactsInput], required: true, description: "The stored artifacts the execution used, by input role." }),
    outputs: t.field({ type: [RoleDraftsInput], required: true, description: "The artifacts the execution produced, by output role." }),
    lineage: t.field({
      type: [ExplicitLineageInput],
      description: "Explicit mappings, taken as given. Outputs without one are stem-matched as their output role's inferLineageFrom says.",
    }),
    pipeline: t.string({ description: "With step: records the step in the pipeline's steps table (macro graph)." }),
    step: t.int({
      description: "With pipeline: the step's number in the pipeline, a whole number ≥ 0. Give both or neither (INVALID_ARGUMENT); another operation under a recorded step is STEP_CONFLICT.",
    }),
    agent: t.string({ description: "Who or what ran it [prov:wasAssociatedWith]." }),
    parentRunId: t.id({
      description:
        "The execution this one ran inside; its edges are then not step-boundary edges. A composite's runs are recorded whole with recordCompositeExecution, which also composes their step-boundary shortcut edges.",
    }),
    pins: t.field({ type: PinsInput, description: "What a replay must pin; evidence packages check them." }),
    status: t.field({ type: ExecutionStatusEnum, description: "Default COMPLETED." }),
    startedAt: t.field({ type: "DateTime", description: "When the run started; null: not known." }),
    endedAt: t.field({ type: "DateTime", description: "When the run ended; null: not known. Before startedAt is INVALID_ARGUMENT." }),
    privacyCost: t.field({
      type: PrivacyCostInput,
      description:
        "Makes the run a differentially private release: recording it debits ε (and δ) from the budget of every protected dataset it reads, directly or through lineage, in the same transaction; PRIVACY_BUDGET_EXHAUSTED (nothing written) when any budget has too little left.",
    }),
    purpose: t.string({
      description:
        "The purpose the run acts under (`fraud-investigation`): one of the recording token's purpose:<NAME> scopes (else PURPOSE_NOT_GRANTED), and one every policy tag on its inputs allows (else PURPOSE_NOT_PERMITTED, nothing written). Without it the run declares no purpose and is not checked.",
    }),
    idempotencyKey: t.string({
      description:
        "Up to 255 characters, chosen by the client for this recording (a UUID, or the pipeline's own run key). A retry with the same key and the same input is answered with the first recording (no second run); " +
        "the same key with another input is IDEMPOTENCY_KEY_REUSED. The key commits with the recording: one refused leaves the key unused.",
    }),
  }),
});

export const UnpairedInputObject = builder.objectRef<ExecutionLinkRecord>("UnpairedInput").implement({
  description: "An input a groupBy operation paired with nothing (LINEAGE: no ancestor shared with any artifact of the other role). It is recorded as an input; no derivation uses it.",
  fields: (t) => ({
    role: t.exposeString("role", { description: "The input role it was given in." }),
    position: t.exposeInt("position", { description: "Its index within that role, as reported." }),
    artifact: t.field({ type: ArtifactRef, description: "The input artifact.", resolve: (link) => link.artifactId }),
  }),
});

const RecordExecutionPayload = builder.objectRef<{ execution: ExecutionRecord | string; edgeCount: number; unpaired: ExecutionLinkRecord[] }>("RecordExecutionPayload").implement({
  description: "A recorded execution: the execution, how many lineage edges it recorded, and the inputs its groupBy paired with nothing.",
  fields: (t) => ({
    execution: t.field({
      type: ExecutionRef,
      description: "The execution recorded; for a retry under an idempotencyKey already used, the execution first recorded.",
      resolve: (payload) => payload.execution,
    }),
    edgeCount: t.exposeInt("edgeCount", { description: "Lineage edges recorded." }),
    unpaired: t.field({ type: [UnpairedInputObject], description: "Inputs the operation's groupBy paired with nothing, never dropped silently (empty without groupBy).", resolve: (payload) => payload.unpaired }),
  }),
});

builder.mutationFields((t) => ({
  registerOperation: t.field({
    type: OperationRef,
    description: "Registers an operation. Registering the same declaration again is a no-op; a different one under the same name and version is an error. Needs the admin scope.",
    args: { input: t.arg({ type: RegisterOperationInput, required: true, description: "The operation's declaration." }) },
    errors: {
      types: [OperationDeclarationError],
      directResult: true,
      union: {
        name: "RegisterOperationResult",
        description: "What registerOperation answers: the operation (registered now, or before with the same declaration), or the OperationDeclarationError naming the rule it breaks.",
      },
    },
    resolve: (_root, { input }, ctx) =>
      ctx.services.registry.register({
        name: input.name,
        version: input.version,
        kind: input.kind,
        groupBy: input.groupBy ?? null,
        businessDateParam: input.businessDateParam ?? null,
        inputs: input.inputs.map((role) => ({ role: role.role, artifactType: role.artifactType, required: role.required })),
        outputs: input.outputs.map((role) => ({ role: role.role, artifactType: role.artifactType, required: role.required, inferLineageFrom: role.inferLineageFrom })),
      }),
  }),
  recordExecution: t.field({
    type: RecordExecutionPayload,
    description: "Records one execution, its outputs and their lineage in one transaction. A rejected execution writes nothing. Needs the write scope.",
    authScopes: { write: true },
    args: { input: t.arg({ type: RecordExecutionInput, required: true, description: "The execution as it ran." }) },
    errors: {
      types: [ArtifactValidationError, LineageCompletenessError, LineageIntegrityError],
      directResult: true,
      union: {
        name: "RecordExecutionResult",
        description:
          "What recordExecution answers: the payload, or the lineage error that rejected the execution, nothing written. Other failures (NOT_FOUND, INVALID_ARGUMENT, …) are GraphQL errors.",
      },
    },
    resolve: async (_root, { input }, ctx) => answerFrom(ctx, await ctx.services.recorder.record(requestOf(input), { beforeCommit: ctx.auditInTransaction, actor: actorOf(ctx) })),
  }),
  recordExecutions: t.field({
    type: [RecordExecutionPayload],
    nullable: { list: false, items: true },
    description:
      `Records a batch of executions, each exactly as recordExecution would, in order (an execution may use the outputs of one before it), sharing transactions: ` +
      `each execution is still atomic, and one rejected leaves the others recorded. One result per input, in order: the payload, a typed lineage error, ` +
      `or null with the item's error (NOT_FOUND, INVALID_ARGUMENT, …) in \`errors\` at its path (["recordExecutions", i]). At most ${REQUEST_LIMITS.maxBatchExecutions} inputs. Needs the write scope.`,
    authScopes: { write: true },
    args: {
      inputs: t.arg({
        type: [RecordExecutionInput],
        required: true,
        description: `The executions, in the order to record them; at most ${REQUEST_LIMITS.maxBatchExecutions} (more is INVALID_ARGUMENT on \`inputs\`, nothing recorded).`,
      }),
    },
    itemErrors: {
      types: [ArtifactValidationError, LineageCompletenessError, LineageIntegrityError],
      directResult: true,
      union: {
        name: "RecordExecutionsItemResult",
        description: "What recordExecutions answers for one input: its payload, or the lineage error that rejected it, nothing of that input written.",
      },
    },
    resolve: async (_root, { inputs }, ctx) => {
      if (inputs.length > REQUEST_LIMITS.maxBatchExecutions) {
        throw new InvalidArgumentError("inputs", `at most ${REQUEST_LIMITS.maxBatchExecutions} executions in one call, got ${inputs.length}`);
      }
      const outcomes = await ctx.services.recorder.recordMany(inputs.map(requestOf), { beforeCommit: ctx.auditInTransaction, actor: actorOf(ctx) });
      // A rejected item is its error: a lineage error becomes its union member, any other the item's GraphQL error.
      const answers: Awaited<ReturnType<typeof answerFrom>>[] = [];
      for (const outcome of outcomes) if (outcome.status === "fulfilled") answers.push(await answerFrom(ctx, outcome.value));
      let next = 0;
      return outcomes.map((outcome) => (outcome.status === "fulfilled" ? answers[next++] : Promise.reject(outcome.reason)));
    },
  }),
}));

type RecordExecutionArgs = typeof RecordExecutionInput.$inferInput;

/** Who records: the request's principal (a release's ledger entries name them). */
const actorOf = (ctx: GraphQLContext) => ({ name: ctx.principal.name, tokenId: ctx.principal.tokenId, purposes: purposesOf(ctx.principal) });

function requestOf(input: RecordExecutionArgs): RecordExecutionRequest {
  return {
    ...input,
    inputs: input.inputs.map((role) => ({ role: role.role, artifactIds: role.artifactIds.map(String) })),
    lineage: input.lineage?.map((entry) => ({ output: entry.output, sources: entry.sources.map(String), kind: entry.kind })),
    parentRunId: input.parentRunId == null ? null : String(input.parentRunId),
  };
}

/** Artifacts primed between two turns of the event loop (a 30,000-output answer primes as many). */
const PRIMES_PER_TURN = 5_000;

/**
 * The response reads back what was just written: answer it from the recording, not the database. A
 * retry answered by its idempotency key is answered from the first recording: its execution is read.
 */
async function answerFrom(ctx: GraphQLContext, recorded: RecordedExecution | ReplayedExecution) {
  if ("replayOf" in recorded) return { execution: recorded.replayOf as string, edgeCount: recorded.edgeCount, unpaired: recorded.unpaired };
  const { execution, links, artifacts } = recorded;
  ExecutionRef.getDataloader(ctx).prime(execution.runId, execution);
  executionLinks(ctx, "CONSUMED").prime(execution.runId, links.consumed);
  executionLinks(ctx, "PRODUCED").prime(execution.runId, links.produced);
  const loader = ArtifactRef.getDataloader(ctx);
  for (let i = 0; i < artifacts.length; i++) {
    if (i > 0 && i % PRIMES_PER_TURN === 0) await yieldToEventLoop();
    loader.prime(artifacts[i].id, artifacts[i]);
  }
  return { execution, edgeCount: recorded.edges.length, unpaired: recorded.unpaired };
}
