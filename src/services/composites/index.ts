// The composites room's one door: registering composites (validation and the workflow-net soundness
// check), recording a composite run (one unit on the commit path, shortcut edges composed from its
// steps) and reading them back. Other rooms import from here, not from the files behind it.
export { CompositeReader, type CompositeRunRecord, type CompositeStepRunRecord } from "./composite-reader";
export { CompositeRecorder, type RecordCompositeRequest, type RecordedComposite } from "./composite-recorder";
export { CompositeRegistry } from "./composite-registry";
export {
  type CompositeDefinition,
  type CompositeDefinitionInput,
  type CompositeStep,
  exposedRoleOf,
  INTERMEDIATES_MODES,
  type IntermediatesMode,
  isActive,
  type StepCondition,
  type Wire,
} from "./definition";
export { CompositeDeclarationError, CompositeExecutionError } from "./errors";
export { type CompositeStepRunRequest } from "./run-plan";
export { MAX_SHORTCUT_DERIVATIONS } from "./shortcut-edges";
export { checkSoundness, type CombinationSoundness, MARKING_BOUND, MAX_FLAGS, type PlaceTokens, type SoundnessWitness, type WorkflowSoundness } from "./soundness";
export { workflowNetOf, type WorkflowNet } from "./workflow-net";
