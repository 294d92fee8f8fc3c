import { type App, type AppOptions, buildApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { createTestDatabaseUrl } from "./test-database";

export interface GraphQLResponse<T = Record<string, any>> {
  data?: T | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: Record<string, any> }[];
}

export interface TestApp {
  app: App;
  /** Runs one GraphQL request in-process through yoga.fetch. */
  gql<T = Record<string, any>>(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<T>>;
  close(): Promise<void>;
}

/**
 * The whole app (migrations, services, Yoga) over a fresh test database, without a socket. By
 * default in open mode (loopback, no token): every request acts as admin. `env` adds configuration
 * (test/support/auth.ts uses it for token mode). Silent unless TEST_LOG_LEVEL asks for its log
 * (`TEST_LOG_LEVEL=error` shows the stack behind an INTERNAL_SERVER_ERROR).
 */
export async function createTestApp(options: { env?: Record<string, string>; app?: AppOptions } = {}): Promise<TestApp> {
  const { url, drop } = await createTestDatabaseUrl();
  const app = await buildApp(loadConfig({ DATABASE_URL: url, PORT: "0", LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent", ...options.env }), options.app);
  return {
    app,
    gql: async (query, variables) => {
      const response = await app.yoga.fetch("http://provgraph.test/graphql", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query, variables }),
      });
      return (await response.json()) as GraphQLResponse<any>;
    },
    close: async () => {
      await app.stop();
      await drop();
    },
  };
}

/** The error codes of a response, in order (for exact assertions). */
export function errorCodes(response: GraphQLResponse): string[] {
  return (response.errors ?? []).map((error) => String(error.extensions?.code));
}
