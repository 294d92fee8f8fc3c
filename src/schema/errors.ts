import { ArtifactValidationError, LineageCompletenessError, LineageIntegrityError, OperationDeclarationError, type ProvenanceError } from "../../plugins/errors";
import { builder } from "./builder";

/** Expected failures of a mutation, returned as members of its result union. */
export const ErrorInterface = builder.interfaceRef<ProvenanceError>("Error").implement({
  description: "An expected failure: `code` is stable, `message` says what to fix.",
  fields: (t) => ({
    message: t.exposeString("message"),
    code: t.exposeString("code"),
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
      role: t.exposeString("role", { nullable: true, description: "The offending role." }),
      output: t.exposeString("output", { nullable: true, description: "The offending output (a draft's originalName)." }),
      outputs: t.exposeStringList("outputs", { description: "Every output the rule failed for." }),
      candidates: t.exposeStringList("candidates", { description: "What was considered: candidate inputs, declared roles, …" }),
      step: t.exposeString("step", { nullable: true, description: "recordCompositeExecution: the composite step whose execution broke the rule." }),
    }),
  });
}

export { ArtifactValidationError, LineageCompletenessError, LineageIntegrityError, OperationDeclarationError };
