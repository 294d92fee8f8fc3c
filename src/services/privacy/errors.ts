import { DomainError } from "../errors";
import { toNumber, type Amount } from "./amounts";

type At = { field: string } | { pointer: string };
const where = (at: At) => ("field" in at ? { field: at.field } : { pointer: at.pointer });

/** A release would spend more ε (or δ) than a protected dataset's budget has left: refused, nothing written. */
export class PrivacyBudgetExhaustedError extends DomainError {
  readonly code = "PRIVACY_BUDGET_EXHAUSTED";
  constructor(at: At, dataset: { namespace: string; name: string }, what: "EPSILON" | "DELTA", remaining: Amount, asked: Amount, runId: string) {
    const symbol = what === "EPSILON" ? "ε" : "δ";
    super(`the release of ${runId} asks ${symbol} = ${toNumber(asked)}, but the privacy budget of dataset ${dataset.namespace}/${dataset.name} has ${symbol} = ${toNumber(remaining)} left: refused`, {
      ...where(at),
      reason: `the privacy budget of ${dataset.namespace}/${dataset.name} is exhausted`,
      dataset: `${dataset.namespace}/${dataset.name}`,
      namespace: dataset.namespace,
      name: dataset.name,
      limit: what,
      ...(what === "EPSILON" ? { remainingEpsilon: toNumber(remaining), askedEpsilon: toNumber(asked) } : { remainingDelta: toNumber(remaining), askedDelta: toNumber(asked) }),
    });
  }
}

/** A release asks more ε than a protected dataset lets one release spend. */
export class PrivacyReleaseCapExceededError extends DomainError {
  readonly code = "PRIVACY_RELEASE_CAP_EXCEEDED";
  constructor(at: At, dataset: { namespace: string; name: string }, cap: Amount, asked: Amount, runId: string) {
    super(`the release of ${runId} asks ε = ${toNumber(asked)}; dataset ${dataset.namespace}/${dataset.name} lets one release spend at most ε = ${toNumber(cap)}: refused`, {
      ...where(at),
      reason: `above the per-release cap of ${dataset.namespace}/${dataset.name}`,
      dataset: `${dataset.namespace}/${dataset.name}`,
      namespace: dataset.namespace,
      name: dataset.name,
      perReleaseEpsilon: toNumber(cap),
      askedEpsilon: toNumber(asked),
    });
  }
}

/** A run recorded as a release reports another cost: a release's cost is fixed once recorded. */
export class PrivacyCostChangedError extends DomainError {
  readonly code = "PRIVACY_COST_CHANGED";
  constructor(at: At, runId: string, recorded: { epsilon: Amount; delta: Amount; mechanism: string }) {
    super(`run ${runId} was recorded as a release of ε = ${toNumber(recorded.epsilon)}, δ = ${toNumber(recorded.delta)} (${recorded.mechanism}); a release's cost cannot change`, {
      ...where(at),
      reason: "a release's privacy cost is fixed once recorded",
      runId,
    });
  }
}

/** declarePrivacyBudget for a dataset that has one. */
export class PrivacyBudgetAlreadyDeclaredError extends DomainError {
  readonly code = "PRIVACY_BUDGET_ALREADY_DECLARED";
  constructor(namespace: string, name: string) {
    super(`dataset ${namespace}/${name} has a privacy budget already: raise it with raisePrivacyBudget`, { field: "dataset", namespace, name });
  }
}
