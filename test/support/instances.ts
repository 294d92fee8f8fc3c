import { type App, buildApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import type { GraphQLResponse, TestApp } from "./test-app";

/**
 * Another instance of the app over the test app's database (what a second server process behind a
 * load balancer is, minus the process): its own connections and its own commit path.
 */
export async function createSecondInstance(t: TestApp, env: Record<string, string> = {}): Promise<TestApp> {
  const app: App = await buildApp(loadConfig({ DATABASE_URL: t.app.database.url, PORT: "0", LOG_LEVEL: "silent", MIGRATE_ON_START: "false", ...env }));
  return {
    app,
    gql: async (query, variables) => {
      const response = await app.yoga.fetch("http://provgraph.test/graphql", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
      return (await response.json()) as GraphQLResponse<any>;
    },
    close: () => app.stop(),
  };
}
