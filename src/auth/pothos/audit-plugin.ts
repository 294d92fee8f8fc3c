import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from "@pothos/core";
import { errorTypeMap } from "@pothos/plugin-errors";
import type { GraphQLFieldResolver } from "graphql";
import { ProvenanceError } from "../../../plugins/errors";
import { presentError } from "../../schema/error-presentation";
import type { AuthContext } from "../context";
import { TOKEN_PREFIX } from "../token-secret";

/**
 * Writes the audit trail around every Mutation field: each admin mutation (whoever calls it, open
 * mode included) and each mutation a token calls, with who, what (the field and the ids it
 * touched), when and the outcome — refusals (FORBIDDEN) and failures included. Fields nobody has
 * thought about are audited too: a mutation is admin unless it declares `write`.
 *
 * Outermost of the resolver wrappers (first in the builder's plugin list), so it sees the scope
 * check's refusal and the errors plugin's typed failures alike. A service that writes in one
 * transaction can take the entry into it (AuthContext.auditInTransaction: recordExecution does);
 * otherwise it is written right after the mutation.
 */
export class AuditPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(resolver: GraphQLFieldResolver<unknown, Types["Context"], object>, fieldConfig: PothosOutputFieldConfig<Types>): GraphQLFieldResolver<unknown, Types["Context"], object> {
    if (fieldConfig.kind !== "Mutation") return resolver;
    const writeOnly = isWriteScope((fieldConfig.pothosOptions as { authScopes?: unknown }).authScopes);
    const action = fieldConfig.name;
    return async (parent, args, context, info) => {
      const ctx = context as AuthContext;
      if (writeOnly && ctx.principal.kind !== "token") return resolver(parent, args, context, info);
      const entry = entryOf(ctx, action);
      let committedWithIt = false;
      // Mutation fields run one after another, so the context holds one audited mutation at a time.
      ctx.auditInTransaction = async (tx, ...targets) => {
        await ctx.auth.audit.append({ ...entry, targets: targets.map(safeTarget), outcome: "OK" }, tx);
        committedWithIt = true;
      };
      let outcome = "OK";
      let targets: string[] = [];
      try {
        const result = await resolver(parent, args, context, info);
        outcome = outcomeOf(result);
        targets = idsIn(outcome === "OK" ? result : args);
        return result;
      } catch (error) {
        const code = presentError(error).extensions.code;
        outcome = typeof code === "string" ? code : "INTERNAL_SERVER_ERROR";
        targets = idsIn(args);
        throw error;
      } finally {
        ctx.auditInTransaction = undefined;
        // A failure rolled back whatever was written in its transaction, the entry included: write it now.
        if (!(committedWithIt && outcome === "OK")) {
          await ctx.auth.audit.append({ ...entry, targets, outcome }).catch((error: unknown) => auditFailed(ctx, action, error));
        }
      }
    };
  }
}

SchemaBuilder.registerPlugin("provgraphAudit", AuditPlugin);

/**
 * The entry of a mutation field refused before its operation ran (src/auth/operation-authorization.ts):
 * who, the field, the ids it was asked to touch, and the refusal's code.
 */
export async function auditRefusal(context: AuthContext, action: string, args: unknown, outcome: string): Promise<void> {
  await context.auth.audit.append({ ...entryOf(context, action), targets: idsIn(args), outcome }).catch((error: unknown) => auditFailed(context, action, error));
}

function entryOf(context: AuthContext, action: string) {
  return { actor: context.principal.name, tokenId: context.principal.tokenId, via: context.transport === "ws" ? ("WS" as const) : ("HTTP" as const), action, requestId: context.requestId };
}

/** Failing to audit must not go unnoticed, but the mutation has already committed: say so loudly. */
function auditFailed(context: AuthContext, action: string, error: unknown): void {
  context.auth.logger.error({ err: error, requestId: context.requestId, action, actor: context.principal.name }, "could not write an audit entry");
}

function isWriteScope(scopes: unknown): boolean {
  return typeof scopes === "object" && scopes !== null && Object.keys(scopes).length === 1 && (scopes as Record<string, unknown>).write === true;
}

/**
 * A typed failure returned as a union member counts as that failure. The errors plugin hands it
 * on wrapped (a proxy that is deliberately no `instanceof Error`); its errorTypeMap knows it.
 */
function outcomeOf(result: unknown): string {
  const results = Array.isArray(result) ? result : [result];
  const failed = results.find((item) => item instanceof ProvenanceError || (typeof item === "object" && item !== null && errorTypeMap.has(item))) as ProvenanceError | undefined;
  return failed ? String(failed.code) : "OK";
}

const ID_KEYS = new Set(["id", "ids", "runId", "runIds"]);
const MAX_TARGETS = 1_000;

/** The ids under `id`/`runId` (and their plurals) in a mutation's result or arguments, three levels deep. */
function idsIn(value: unknown, depth = 0, found: Set<string> = new Set()): string[] {
  if (depth > 3 || found.size >= MAX_TARGETS || value === null || typeof value !== "object") return [...found];
  if (Array.isArray(value)) {
    for (const item of value) idsIn(item, depth + 1, found);
    return [...found];
  }
  for (const [key, child] of Object.entries(value)) {
    if (!ID_KEYS.has(key)) {
      idsIn(child, depth + 1, found);
      continue;
    }
    for (const id of Array.isArray(child) ? child : [child]) {
      if (typeof id === "string" && found.size < MAX_TARGETS) found.add(safeTarget(id));
    }
  }
  return [...found];
}

/** A token secret passed where an id belongs is never stored. */
function safeTarget(id: string): string {
  if (id.startsWith(TOKEN_PREFIX)) return `${TOKEN_PREFIX}****`;
  return id.length > 200 ? `${id.slice(0, 200)}…` : id;
}
