import { ArtifactValidationError } from "../errors";
import type { DraftExecution } from "../types";
import { firstRepeated } from "./first-repeated";

// Seed "Artifact validation": required roles are present, artifact types match, no undeclared roles;
// and a curator's undeclared outputs are passthroughs, so each must be one of its inputs.
export function validateArtifacts(draft: DraftExecution): void {
  const { operation } = draft;
  const declaredInputs = new Map(operation.inputs.map((role) => [role.role, role]));
  const declaredOutputs = new Map(operation.outputs.map((role) => [role.role, role]));

  for (const input of draft.inputs) {
    if (!declaredInputs.has(input.role)) {
      throw new ArtifactValidationError(`input role '${input.role}' is not declared by ${operation.name}@${operation.version}`, {
        rule: "UNDECLARED_INPUT_ROLE",
        role: input.role,
        candidates: [...declaredInputs.keys()],
      });
    }
  }
  for (const output of draft.outputs) {
    if (!declaredOutputs.has(output.role)) {
      throw new ArtifactValidationError(`output role '${output.role}' is not declared by ${operation.name}@${operation.version}`, {
        rule: "UNDECLARED_OUTPUT_ROLE",
        role: output.role,
        output: output.originalName,
        candidates: [...declaredOutputs.keys()],
      });
    }
  }
  for (const role of operation.inputs) {
    const artifacts = draft.inputs.filter((input) => input.role === role.role);
    if (role.required && artifacts.length === 0) {
      throw new ArtifactValidationError(`required input role '${role.role}' has no artifacts`, { rule: "REQUIRED_ROLE_MISSING", role: role.role });
    }
    for (const artifact of artifacts) {
      if (artifact.artifactType !== role.artifactType) {
        throw new ArtifactValidationError(
          `input ${artifact.id} ('${artifact.originalName}') in role '${role.role}' is of type '${artifact.artifactType}', the role declares '${role.artifactType}'`,
          { rule: "ARTIFACT_TYPE_MISMATCH", role: role.role, candidates: [artifact.id] },
        );
      }
    }
    const repeated = firstRepeated(artifacts.map((a) => a.id));
    if (repeated) {
      throw new ArtifactValidationError(`input ${repeated} appears twice in role '${role.role}'`, { rule: "DUPLICATE_INPUT", role: role.role, candidates: [repeated] });
    }
  }
  for (const role of operation.outputs) {
    const drafts = draft.outputs.filter((o) => o.role === role.role);
    // An execution that did not complete may not have produced everything.
    if (role.required && drafts.length === 0 && draft.status === "COMPLETED") {
      throw new ArtifactValidationError(
        `required output role '${role.role}' has no artifacts: a COMPLETED execution of ${operation.name}@${operation.version} reports every required output role (declare the role required: false if it may be empty)`,
        { rule: "MISSING_OUTPUT_ROLE", role: role.role },
      );
    }
    const repeated = firstRepeated(drafts, (o) => o.contentHash);
    if (repeated) {
      throw new ArtifactValidationError(`two outputs of role '${role.role}' have the same content (${repeated.contentHash})`, {
        rule: "DUPLICATE_OUTPUT",
        role: role.role,
        output: repeated.originalName,
        candidates: drafts.filter((o) => o.contentHash === repeated.contentHash).map((o) => o.originalName),
      });
    }
  }
  const inputIds = new Set(draft.inputs.map((input) => input.id));
  for (const output of draft.outputs) {
    if (declaredOutputs.get(output.role)!.inferLineageFrom !== null || inputIds.has(output.id)) continue;
    throw new ArtifactValidationError(
      `output '${output.originalName}' of role '${output.role}' is not one of this execution's inputs (its id ${output.id} comes from its content hash and the role's type '${output.artifactType}'): ` +
        `role '${output.role}' declares no inferLineageFrom, so ${operation.name}@${operation.version} passes inputs through unchanged. To record a new artifact there, declare inferLineageFrom on the role (in a new version of the operation)`,
      { rule: "NOT_PASSTHROUGH", role: output.role, output: output.originalName, candidates: [...inputIds] },
    );
  }
  if (operation.groupBy === "ZIP") {
    const counts = operation.inputs.map((role) => draft.inputs.filter((input) => input.role === role.role).length);
    if (new Set(counts).size > 1) {
      throw new ArtifactValidationError(
        `groupBy ZIP pairs the i-th artifact of every input role, but ${operation.inputs.map((r, i) => `'${r.role}' has ${counts[i]}`).join(", ")}`,
        { rule: "ZIP_LENGTH_MISMATCH", role: operation.inputs[counts.findIndex((c) => c !== counts[0])]?.role ?? null, candidates: operation.inputs.map((r) => r.role) },
      );
    }
  }
}
