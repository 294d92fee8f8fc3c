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
    validateArtifacts(draft);
    validateCompleteness(draft, mappings);
    await validateIntegrity(draft, mappings, port);
  },
};
