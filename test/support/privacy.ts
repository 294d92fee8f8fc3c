import { randomUUID } from "node:crypto";
import { hopEvent } from "./compliance";
import { dataset, runEvent } from "./openlineage";

/** Helpers for the privacy tests: budgets through GraphQL, releases as OpenLineage events. */

export const DECLARE = `mutation($input: PrivacyBudgetInput!) { declarePrivacyBudget(input: $input) { namespace name epsilon { total spent remaining } delta { total spent remaining } perReleaseEpsilon accounting } }`;
export const RAISE = `mutation($input: PrivacyBudgetInput!) { raisePrivacyBudget(input: $input) { epsilon { total spent remaining } delta { total } perReleaseEpsilon } }`;
export const BUDGET = `query($namespace: String!, $name: String!) { privacyBudget(namespace: $namespace, name: $name) {
  epsilon { total spent remaining } delta { total spent remaining } perReleaseEpsilon accounting
  releases(first: 50) { edges { node { runId principal epsilon delta mechanism epsilonSpentAfter at } } }
  changes { action epsilon delta perReleaseEpsilon previousEpsilon reason changedBy } } }`;

/** crm.customers (the protected source) → staging.customers → marts.segments, with column lineage. */
export function protectedChain(ns: string) {
  return [
    hopEvent(ns, "load", [], { name: "crm.customers", fields: ["id", "tax_id", "region"], facets: { version: { datasetVersion: "v1" } } }, []),
    hopEvent(ns, "stage", [{ name: "crm.customers", fields: ["id", "tax_id", "region"], facets: { version: { datasetVersion: "v1" } } }], { name: "staging.customers", fields: ["id", "region"], facets: { version: { datasetVersion: "v1" } } }, [
      ["id", "crm.customers", "id", "DIRECT"],
      ["region", "crm.customers", "region", "DIRECT"],
    ]),
    hopEvent(ns, "segment", [{ name: "staging.customers", fields: ["id", "region"], facets: { version: { datasetVersion: "v1" } } }], { name: "marts.segments", fields: ["region", "n"], facets: { version: { datasetVersion: "v1" } } }, [
      ["region", "staging.customers", "region", "DIRECT"],
      ["n", "staging.customers", "id", "INDIRECT"],
    ]),
  ];
}

/** A release: a run reading `inputs` (namespace-local dataset names at version v1) that declares its privacy cost, writing a report. */
export function releaseEvent(ns: string, inputs: string[], cost: Record<string, unknown>, options: { runId?: string; report?: string; extra?: Record<string, unknown> } = {}) {
  return runEvent({
    run: { runId: options.runId ?? randomUUID(), facets: { provgraph_privacyCost: cost } },
    job: { namespace: ns, name: "dp_report" },
    inputs: inputs.map((name) => dataset(ns, name, { version: { datasetVersion: "v1" } })),
    outputs: [dataset(ns, options.report ?? `reports.dp_${randomUUID().slice(0, 8)}`)],
    ...options.extra,
  });
}
