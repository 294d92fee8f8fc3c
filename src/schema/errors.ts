import { ArtifactValidationError, LineageCompletenessError, LineageIntegrityError, OperationDeclarationError, type ProvenanceError } from "../../plugins/errors";
import { cappedText, cappedValue } from "../services/echo-limits";
import { builder } from "./builder";

/** Expected failures of a mutation, returned as members of its result union. */
export const ErrorInterface = builder.interfaceRef<ProvenanceError>("Error").implement({
  description: "An expected failure: `code` is stable, `message` says what to fix.",
  fields: (t) => ({
    // What the caller sent may be quoted: cut to ECHO_LIMITS.
    message: t.string({ description: "What is wrong and what to fix, in words: at most 1,000 characters (a longer message is cut, ending with its length).", resolve: (error) => cappedText(error.message) }),
    code: t.exposeString("code", { description: "The stable error code (ARTIFACT_VALIDATION, LINEAGE_INTEGRITY, OPERATION_DECLARATION, …): what a client branches on." }),
  }),
});

const violationErrors = [
  [ArtifactValidationError, "ARTIFACT_VALIDATION: the artifacts do not satisfy the operation's declared roles."],
  [LineageCompletenessError, "LINEAGE_COMPLETENESS: a non-orphan output has no source edge."],
  [LineageIntegrityError, "LINEAGE_INTEGRITY: a lineage reference points at nothing real, or maps one output twice."],
  [OperationDeclarationError, "OPERATION_DECLARATION: the operation declaration breaks a registration rule."],
] as const;

for (const [errorClass, description] of violationErrors) {
  builder.objectType(errorClass, {
    name: errorClass.name,
    description,
    interfaces: [ErrorInterface],
    isTypeOf: (value) => value instanceof errorClass,
    fields: (t) => ({
      rule: t.exposeString("rule", { description: "The rule broken, e.g. NO_LINEAGE_MAPPING." }),
      role: t.string({ nullable: true, description: "The offending role.", resolve: (e) => e.role && cappedText(e.role) }),
      output: t.string({ nullable: true, description: "The offending output (a draft's originalName).", resolve: (e) => e.output && cappedText(e.output) }),
      outputs: t.stringList({ description: "Every output the rule failed for.", resolve: (e) => cappedValue(e.outputs) }),
      candidates: t.stringList({ description: "What was considered: candidate inputs, declared roles, …", resolve: (e) => cappedValue(e.candidates) }),
      step: t.string({ nullable: true, description: "recordCompositeExecution: the composite step whose execution broke the rule.", resolve: (e) => e.step && cappedText(e.step) }),
    }),
  });
}

export { ArtifactValidationError, LineageCompletenessError, LineageIntegrityError, OperationDeclarationError };
