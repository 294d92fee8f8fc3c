/** provgraph as a real server process on a fresh test database, with the Explorer built, for the browser tests. */
import { type ServerProcess, startServer } from "../../../test/support/server-process";
import { createTestDatabaseUrl } from "../../../test/support/test-database";
import { ensureExplorerBuilt } from "./build";

export interface ExplorerServer {
  /** Where the browser goes (http://127.0.0.1:port). */
  origin: string;
  /** The server's own GraphQL URL (for other clients). */
  graphqlUrl: string;
  process: ServerProcess;
  stop(): Promise<void>;
}

export async function startExplorerServer(env: Record<string, string> = {}): Promise<ExplorerServer> {
  ensureExplorerBuilt();
  const database = await createTestDatabaseUrl();
  // A fresh store's migrations and start-up took ~55 s at load average 43 on 2 cores: a start-up limit, not a figure.
  const server = await startServer({ DATABASE_URL: database.url, PORT: "0", HOST: "127.0.0.1", ...env }, 180_000).catch(async (error) => {
    await database.drop();
    throw error;
  });
  const origin = new URL(server.url).origin;
  return {
    origin,
    graphqlUrl: server.url,
    process: server,
    stop: async () => {
      server.child.kill("SIGTERM");
      await server.exited;
      await database.drop();
    },
  };
}
