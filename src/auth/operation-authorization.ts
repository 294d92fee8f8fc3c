import { type DocumentNode, type FieldNode, getArgumentValues, getOperationAST, GraphQLError, type GraphQLObjectType, type GraphQLSchema } from "graphql";
import type { Plugin } from "graphql-yoga";
import { presentError } from "../schema/error-presentation";
import { rootFieldsOf } from "../schema/root-fields";
import type { AuthContext } from "./context";
import { ScopeRequiredError } from "./errors";
import { holds, type Principal } from "./principal";
import { auditRefusal } from "./pothos/audit-plugin";
import { rootFieldScopes } from "./pothos/root-scopes-plugin";
import type { Scope } from "./scopes";

/** A root field of an operation the principal may not run: where it is, and the scopes any one of which it needs. */
export interface RefusedRootField {
  responseKey: string;
  field: string;
  scopes: readonly Scope[];
  nodes: readonly FieldNode[];
}

/**
 * The root fields of the operation that `principal` lacks the scope for, as the executor would
 * run them (rootFieldsOf). A root field that names no scopes needs admin (fail closed).
 */
export function refusedRootFields(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, variables: unknown, principal: Principal): RefusedRootField[] {
  const operation = getOperationAST(document, operationName);
  const rootType = operation ? schema.getRootType(operation.operation) : undefined;
  if (!operation || !rootType) return []; // the executor refuses it before anything runs
  const refused: RefusedRootField[] = [];
  for (const [responseKey, nodes] of rootFieldsOf(schema, document, operation, rootType, variables)) {
    const name = nodes[0].name.value;
    if (name.startsWith("__")) continue;
    const field = rootType.getFields()[name];
    if (!field) continue; // validation refused it already
    const scopes = rootFieldScopes(field) ?? ["admin"];
    if (!scopes.some((scope) => holds(principal, scope))) refused.push({ responseKey, field: name, scopes, nodes });
  }
  return refused;
}

/**
 * Authorization before execution, for HTTP, SSE and graphql-ws alike (they share Yoga's envelope):
 * every root field of the operation is checked against the principal's scopes before the first
 * resolver runs, and a field it lacks the scope for anywhere in the operation means nothing runs.
 * The answer is one FORBIDDEN per refused field (naming the field and the scope, at its response
 * key) with `data: null`, HTTP 403 with the insufficient_scope challenge; each refused mutation
 * field leaves its audit entry (outcome FORBIDDEN), the fields that were not refused leave none.
 */
export function useOperationAuthorization(): Plugin {
  const refusal = async (args: { schema: GraphQLSchema; document: DocumentNode; operationName?: string | null; variableValues?: unknown; contextValue: unknown }) => {
    const context = args.contextValue as AuthContext;
    if (!context?.principal) return undefined; // the context factory refuses a request without one
    const refused = refusedRootFields(args.schema, args.document, args.operationName, args.variableValues, context.principal);
    if (refused.length === 0) return undefined;
    const operation = getOperationAST(args.document, args.operationName)!;
    if (operation.operation === "mutation") {
      const mutationType = args.schema.getMutationType()!;
      for (const field of refused) await auditRefusal(context, field.field, argumentsOf(mutationType, field, args.variableValues), "FORBIDDEN");
    }
    return { data: null, errors: refused.map((field) => forbidden(field, context.principal)) };
  };
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const result = await refusal(args);
      if (result) setResultAndStopExecution(result);
    },
    async onSubscribe({ args, setResultAndStopExecution }) {
      const result = await refusal(args);
      if (result) setResultAndStopExecution(result);
    },
  };
}

function forbidden(refused: RefusedRootField, principal: Principal): GraphQLError {
  const scope = refused.scopes.join(" or ");
  const held = principal.kind === "token" ? principal.scopes.join(", ") : "every scope";
  const shown = presentError(new ScopeRequiredError(refused.field, scope, `${refused.field} needs the ${scope} scope; token '${principal.name}' has ${held}`));
  return new GraphQLError(shown.message, { nodes: refused.nodes, path: [refused.responseKey], extensions: shown.extensions });
}

/** A refused mutation field's arguments, for its audit entry's targets (none when they do not coerce). */
function argumentsOf(type: GraphQLObjectType, refused: RefusedRootField, variables: unknown): Record<string, unknown> {
  try {
    return getArgumentValues(type.getFields()[refused.field], refused.nodes[0], (variables ?? {}) as Record<string, unknown>);
  } catch {
    return {};
  }
}
