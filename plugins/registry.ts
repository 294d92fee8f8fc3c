import { configReferenceLineage, explicitLineage, stemLineageInference } from "./lineage-inference";
import { lineageValidation } from "./lineage-validation";
import { policyTagPropagation } from "./policy-tags";
import type { ProvgraphPlugin } from "./types";

/**
 * The plugins the recording pipeline runs, in order within each stage. Explicit mappings come
 * first so nothing overrides what a producer declared; an inferrer of your own goes before
 * stemLineageInference to take precedence over stem matching, or after it to fill what stem
 * matching left unmapped. Policy-tag propagation is the propagate stage. (Or pass your own list:
 * buildApp(config, { plugins }).)
 */
export const defaultPlugins: readonly ProvgraphPlugin[] = [explicitLineage, stemLineageInference, configReferenceLineage, lineageValidation, policyTagPropagation];
