import { LARGE_DRAFT_ARTIFACTS, nextTurn } from "../event-loop";
import type { ValidatePlugin } from "../types";
import { validateArtifacts } from "./artifact-validation";
import { validateCompleteness } from "./completeness-validation";
import { validateIntegrity } from "./integrity-validation";

export { validateArtifacts, validateCompleteness, validateIntegrity };

// Seed "Lineage validation": three levels, failing fast, before anything is staged.
export const lineageValidation: ValidatePlugin = {
  name: "lineage-validation",
  stage: "validate",
  async validate(draft, { mappings, port }) {
    const large = draft.inputs.length + draft.outputs.length > LARGE_DRAFT_ARTIFACTS;
    validateArtifacts(draft);
    if (large) await nextTurn();
    validateCompleteness(draft, mappings);
    if (large) await nextTurn();
    await validateIntegrity(draft, mappings, port);
  },
};
