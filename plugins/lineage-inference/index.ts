export { explicitLineage } from "./explicit-lineage";
export { stemLineageInference } from "./stem-lineage";
export { configReferenceLineage, artifactReferencesIn } from "./config-references";
export { stemOf, matchByStem, createStemIndex, digitBoundaryPrefixes } from "./stem";
