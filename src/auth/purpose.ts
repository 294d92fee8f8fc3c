import type { Plugin } from "graphql-yoga";
import { PURPOSE_NAME, PURPOSE_SYNTAX, PurposeNotGrantedError } from "../services/compliance";
import { isPurposeScope } from "./scopes";
import { InvalidArgumentError } from "../services/errors";
import { principalOf } from "./http";
import { holds, type Principal } from "./principal";

/**
 * The purpose a request acts under (docs: "Purposes"): stated by the client with the
 * `X-Provgraph-Purpose` header (HTTP, SSE, the lineage and evidence routes) or `connectionParams.purpose`
 * (graphql-ws), and one of the purposes its token carries (`purpose:<NAME>` scopes; open mode
 * acts under any). Reading a value guarded by tags that declare purposes needs a stated purpose they
 * allow; a request stating none reads only what no purpose restricts.
 */
export const PURPOSE_HEADER = "x-provgraph-purpose";

/** Whether the principal may act under `purpose` (holds purpose:<NAME>; open mode: any). */
export function mayActUnder(principal: Principal, purpose: string): boolean {
  return holds(principal, `purpose:${purpose}`);
}

/** The purposes the principal may act under, as recordings check a run's purpose against them ("ANY" in open mode). */
export function purposesOf(principal: Principal): readonly string[] | "ANY" {
  return principal.kind === "open" ? "ANY" : principal.scopes.filter(isPurposeScope).map((scope) => scope.slice("purpose:".length));
}

/** The purpose stated, checked: null when none is; refused when malformed or not one the principal may act under. */
export function statedPurpose(principal: Principal, value: unknown, field: string): string | null {
  if (value === undefined || value === null || value === "") return null;
  if (typeof value !== "string" || !PURPOSE_NAME.test(value.trim())) throw new InvalidArgumentError(field, `is not a purpose: ${PURPOSE_SYNTAX}`);
  const purpose = value.trim();
  if (!mayActUnder(principal, purpose)) throw new PurposeNotGrantedError(principal.name, purpose, { field });
  return purpose;
}

const purposes = new WeakMap<Request, string | null>();

/** The purpose an HTTP request states (null: none), as useRequestPurpose checked it. */
export function purposeOf(request: Request | undefined): string | null {
  return request ? (purposes.get(request) ?? null) : null;
}

/**
 * Checks the purpose an authenticated HTTP request states before anything runs: malformed is 400
 * INVALID_ARGUMENT, one its token does not carry 403 PURPOSE_NOT_GRANTED.
 */
export function useRequestPurpose(): Plugin {
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      const header = request.headers.get(PURPOSE_HEADER);
      if (header === null) return;
      const principal = principalOf(request);
      if (!principal) return;
      try {
        purposes.set(request, statedPurpose(principal, header, "X-Provgraph-Purpose"));
      } catch (error) {
        const refusal = error as PurposeNotGrantedError | InvalidArgumentError;
        const status = refusal instanceof PurposeNotGrantedError ? 403 : 400;
        endResponse(fetchAPI.Response.json({ errors: [{ message: refusal.message, extensions: { code: refusal.code, ...refusal.details } }] }, { status }));
      }
    },
  };
}
