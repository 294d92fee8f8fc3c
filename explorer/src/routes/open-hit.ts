/** Where choosing a search hit leads. */
import type { HitFieldsFragment } from "../api/generated";
import { hrefOf } from "./router";

export const KIND_LABELS: Record<HitFieldsFragment["kind"], string> = {
  ARTIFACT: "Artifacts",
  DATASET: "Datasets",
  COLUMN: "Columns",
  JOB: "Jobs",
  PIPELINE: "Pipelines",
  RUN: "Runs",
  POLICY_TAG: "Policy tags",
};

export const KIND_ORDER: HitFieldsFragment["kind"][] = ["DATASET", "ARTIFACT", "COLUMN", "RUN", "JOB", "PIPELINE", "POLICY_TAG"];

export function hrefOfHit(hit: Pick<HitFieldsFragment, "kind" | "id" | "label">): string {
  switch (hit.kind) {
    case "ARTIFACT":
    case "DATASET":
    case "RUN":
      return hrefOf("/graph", { root: hit.id });
    case "COLUMN": {
      // col:<art_id>:<field>: open its dataset version with its columns, the column selected.
      const artifactId = hit.id.split(":")[1];
      return hrefOf("/graph", { root: artifactId, cols: true, sel: hit.id });
    }
    case "PIPELINE":
      return hrefOf("/pipeline", { name: hit.id.replace(/^pipeline:/, "") });
    case "JOB":
      return hrefOf("/search", { q: hit.label, kinds: "RUN" });
    case "POLICY_TAG":
      return hrefOf("/search", { q: hit.label });
  }
}

/** Groups hits by kind, in KIND_ORDER, keeping the server's ranking inside each group. */
export function groupHits<T extends { kind: HitFieldsFragment["kind"] }>(hits: readonly T[]): { kind: HitFieldsFragment["kind"]; hits: T[] }[] {
  return KIND_ORDER.map((kind) => ({ kind, hits: hits.filter((h) => h.kind === kind) })).filter((g) => g.hits.length > 0);
}
