import { ProvenanceError } from "../../../plugins/errors";

/**
 * A step's own error (its class, code and details kept) naming the step: `step` in the details (and
 * on lineage errors, which expose it), the message prefixed, and a `field` pointing into the request's
 * `steps[i]`. Anything that is not a ProvenanceError (a fault) passes through untouched.
 */
export function inStep(error: unknown, step: string, index: number): unknown {
  if (!(error instanceof ProvenanceError)) return error;
  const details: Record<string, unknown> = { ...error.details, step };
  if (typeof details.field === "string") details.field = `steps[${index}].${details.field}`;
  const named = Object.assign(Object.create(Object.getPrototypeOf(error)) as ProvenanceError, error, { details });
  Object.defineProperty(named, "message", { value: `step '${step}': ${error.message}`, writable: true, configurable: true });
  Object.defineProperty(named, "stack", { value: error.stack, writable: true, configurable: true });
  if ("step" in error) (named as unknown as { step: string }).step = step;
  return named;
}
