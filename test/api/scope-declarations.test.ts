import SchemaBuilder from "@pothos/core";
import ScopeAuthPlugin from "@pothos/plugin-scope-auth";
import { type ExecutionResult, graphql, type GraphQLObjectType, parse, subscribe } from "graphql";
import { type AuthContext, OPEN_MODE, type Principal } from "../../src/auth";
import { AUDIT_PLUGIN, type ProvgraphAuthScopes, ROOT_SCOPES_PLUGIN, scopeAuthOptions } from "../../src/auth/pothos";
import { rootFieldScopes as checkedScopes } from "../../src/auth/pothos/root-scopes-plugin";
import { schema } from "../../src/schema";

/** Every root field's effective scopes, as the scope plugin will check them. */
function rootFieldScopes(type: GraphQLObjectType | null | undefined): Record<string, unknown> {
  if (!type) return {};
  return Object.fromEntries(Object.values(type.getFields()).map((field) => [field.name, (field.extensions as { pothosOptions?: { authScopes?: unknown } }).pothosOptions?.authScopes]));
}

describe("every root field declares the scope it needs, and undeclared ones fail closed", () => {
  test("the scopes of today's fields: reads read, recording write, declarations, tags, erasure, token and audit work admin", () => {
    expect(rootFieldScopes(schema.getMutationType())).toEqual({
      createApiToken: { admin: true },
      declarePrivacyBudget: { admin: true },
      declareTagPurposes: { admin: true },
      downgradeTag: { admin: true },
      erasurePlan: { admin: true },
      executeErasure: { admin: true },
      ingestOpenLineageEvents: { write: true },
      recordCatalogueFacts: { admin: true },
      recordCompositeExecution: { write: true },
      recordExecution: { write: true },
      recordExecutions: { write: true },
      raisePrivacyBudget: { admin: true },
      registerComposite: { admin: true },
      registerOperation: { admin: true },
      revokeApiToken: { admin: true },
      tagArtifact: { admin: true },
      tagColumn: { admin: true },
    });
    const queries = rootFieldScopes(schema.getQueryType());
    expect(Object.entries(queries).filter(([, scopes]) => JSON.stringify(scopes) !== '{"read":true}')).toEqual([
      ["apiTokens", { admin: true }],
      ["auditLog", { admin: true }],
      ["erasurePlanById", { admin: true }],
      ["erasurePlans", { admin: true }],
      ["integrityReport", { admin: true }],
      ["purposesServed", { admin: true }],
      ["tagAudit", { admin: true }],
    ]);
    // Compliance reads: evidence packages and their verification need read only (as GET /api/v1/evidence does).
    expect([queries.evidencePackage, queries.verifyEvidence]).toEqual([{ read: true }, { read: true }]);
  });

  test("whatever fields are added: no query or subscription below read, no mutation below write", () => {
    const allowed = (scopes: unknown, levels: string[]) => typeof scopes === "object" && scopes !== null && Object.keys(scopes).length > 0 && Object.keys(scopes).every((scope) => levels.includes(scope));
    for (const [type, levels] of [
      [schema.getQueryType(), ["read", "write", "admin", "clearance"]],
      [schema.getSubscriptionType(), ["read", "write", "admin", "clearance"]],
      [schema.getMutationType(), ["write", "admin"]],
    ] as const) {
      for (const [field, scopes] of Object.entries(rootFieldScopes(type))) expect([field, allowed(scopes, [...levels])]).toEqual([field, true]);
    }
  });

  test("each root field carries the scopes checked before its operation runs, and they agree with what scope-auth checks", () => {
    for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
      for (const field of Object.values(type!.getFields())) {
        const declared = (field.extensions as { pothosOptions: { authScopes: Record<string, unknown> } }).pothosOptions.authScopes;
        const expected = Object.entries(declared).map(([scope, value]) => (scope === "clearance" ? `clearance:${value}` : scope));
        expect([field.name, checkedScopes(field)]).toEqual([field.name, expected]);
      }
    }
  });

  test("a root field whose scopes could only be decided while it resolves (a function) is refused when the schema is built", () => {
    const builder = new SchemaBuilder<{ Context: AuthContext; AuthScopes: ProvgraphAuthScopes }>({ plugins: [ROOT_SCOPES_PLUGIN, ScopeAuthPlugin], scopeAuth: scopeAuthOptions });
    builder.queryType({ fields: (t) => ({ dynamic: t.string({ authScopes: () => ({ read: true }), resolve: () => "x" }) }) });
    expect(() => builder.toSchema()).toThrow("Query.dynamic: a root field's authScopes must be a plain map such as { write: true } or { clearance: \"PII\" } (a function or another value cannot be checked before the operation runs)");
  });

  describe("a schema built with provgraph's plugins, with fields that declare nothing", () => {
    const builder = new SchemaBuilder<{ Context: AuthContext; AuthScopes: ProvgraphAuthScopes }>({ plugins: [AUDIT_PLUGIN, ROOT_SCOPES_PLUGIN, ScopeAuthPlugin], scopeAuth: scopeAuthOptions });
    builder.queryType({ fields: (t) => ({ undeclaredQuery: t.string({ resolve: () => "read" }) }) });
    builder.mutationType({
      fields: (t) => ({
        undeclaredMutation: t.string({ resolve: () => "done" }),
        declaredWrite: t.string({ authScopes: { write: true }, resolve: () => "written" }),
      }),
    });
    builder.subscriptionType({
      fields: (t) => ({
        undeclaredSubscription: t.string({
          subscribe: async function* () {
            yield "tick";
          },
          resolve: (value: string) => value,
        }),
      }),
    });
    const mini = builder.toSchema();
    const appended: unknown[] = [];
    const context = (principal: Principal): AuthContext => ({ principal, requestId: "r", transport: "http", auth: { audit: { append: async (event: unknown) => void appended.push(event) } } as never });
    const token = (...scopes: ("read" | "write" | "admin")[]): Principal => ({ kind: "token", name: scopes.join("+"), tokenId: "tok_x" as never, scopes });
    const run = async (source: string, principal: Principal) => {
      const result = await graphql({ schema: mini, source, contextValue: context(principal) });
      return { data: result.data, codes: result.errors?.map((e) => [(e.originalError as { code?: string })?.code, (e.originalError as { scope?: string })?.scope]) };
    };

    test("an undeclared mutation is admin-only: a write token is FORBIDDEN naming admin, and the attempt is audited", async () => {
      expect(await run("mutation { undeclaredMutation }", token("write"))).toEqual({ data: { undeclaredMutation: null }, codes: [["FORBIDDEN", "admin"]] });
      expect(await run("mutation { undeclaredMutation }", token("admin"))).toEqual({ data: { undeclaredMutation: "done" }, codes: undefined });
      expect(appended).toEqual([
        { actor: "write", tokenId: "tok_x", via: "HTTP", action: "undeclaredMutation", targets: [], outcome: "FORBIDDEN", requestId: "r" },
        { actor: "admin", tokenId: "tok_x", via: "HTTP", action: "undeclaredMutation", targets: [], outcome: "OK", requestId: "r" },
      ]);
    });

    test("`authScopes: { write: true }` is the one line that opens a mutation to write tokens; read is still refused", async () => {
      expect(await run("mutation { declaredWrite }", token("write"))).toEqual({ data: { declaredWrite: "written" }, codes: undefined });
      expect((await run("mutation { declaredWrite }", token("read"))).codes).toEqual([["FORBIDDEN", "write"]]);
    });

    test("undeclared queries and subscriptions need read", async () => {
      expect(await run("{ undeclaredQuery }", token("read"))).toEqual({ data: { undeclaredQuery: "read" }, codes: undefined });
      const noScopes: Principal = { kind: "token", name: "none", tokenId: "tok_y" as never, scopes: ["clearance:PII"] };
      expect((await run("{ undeclaredQuery }", noScopes)).codes).toEqual([["FORBIDDEN", "read"]]);
      expect(rootFieldScopes(mini.getSubscriptionType())).toEqual({ undeclaredSubscription: { read: true } });
      // Checked when the subscription starts (authorizeOnSubscribe), not when its first event arrives.
      const refused = (await subscribe({ schema: mini, document: parse("subscription { undeclaredSubscription }"), contextValue: context(noScopes) })) as ExecutionResult;
      expect(refused.errors?.map((e) => [(e.originalError as { code?: string }).code, (e.originalError as { scope?: string }).scope])).toEqual([["FORBIDDEN", "read"]]);
      const events = (await subscribe({ schema: mini, document: parse("subscription { undeclaredSubscription }"), contextValue: context(token("read")) })) as AsyncIterableIterator<ExecutionResult>;
      expect((await events.next()).value).toEqual({ data: { undeclaredSubscription: "tick" } });
      expect((await run("mutation { undeclaredMutation }", OPEN_MODE)).data).toEqual({ undeclaredMutation: "done" });
    });
  });
});
