import http from "node:http";
import { createYoga, type YogaServerInstance } from "graphql-yoga";
import type { ProvgraphPlugin } from "../plugins/types";
import type { Config } from "./config";
import { type Database, openDatabase } from "./db/client";
import { maskDatabaseUrl } from "./db/database-url";
import { migrateDatabase } from "./db/migrate";
import { serveGraphQLOverWebSocket } from "./http/graphql-ws";
import { useHealthChecks } from "./health";
import { useCompiledLineage } from "./http/compiled-lineage";
import { useRequestLimits } from "./limits";
import { renderLocalGraphiQL, useGraphiQLAssets } from "./http/graphiql";
import { listen } from "./http/listen";
import { createLogger, type Logger } from "./logger";
import { requestIdOf, useRequestLog } from "./http/request-log";
import type { GraphQLContext } from "./schema/context";
import { presentError, wasPresented } from "./schema/error-presentation";
import { schema } from "./schema/index";
import type { EventJournal } from "./services/recording";
import { createServices, type Services } from "./services/services";

export type Yoga = YogaServerInstance<Record<string, unknown>, GraphQLContext>;

export interface App {
  yoga: Yoga;
  services: Services;
  database: Database;
  logger: Logger;
  /** Listen on config.host:config.port (0 = any free port); resolves with the GraphQL URL. */
  start(): Promise<string>;
  /** Stop accepting, let in-flight requests finish (up to the grace period), close the database. */
  stop(): Promise<void>;
}

/** The database could not be opened, migrated or reached at start-up. */
export class DatabaseUnavailableError extends Error {
  constructor(url: string, cause: unknown) {
    super(`cannot use database ${maskDatabaseUrl(url)}: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = "DatabaseUnavailableError";
  }
}

export interface AppOptions {
  logger?: Logger;
  /** The recording pipeline's plugins (default: plugins/registry.ts defaultPlugins). */
  plugins?: readonly ProvgraphPlugin[];
  /** The feed log the commit path writes in each recording transaction (see EventJournal). */
  journal?: EventJournal;
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const database = await connectDatabase(config, logger);
  const services = createServices(database, { plugins: options.plugins, journal: options.journal });
  const yoga: Yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    graphiql: { subscriptionsProtocol: "WS", title: "provgraph" },
    renderGraphiQL: renderLocalGraphiQL,
    logging: yogaLogger(logger),
    context: ({ request }): GraphQLContext => ({ services, requestId: requestIdOf(request) }),
    maskedErrors: { maskError: (error) => presentError(error) },
    plugins: [
      useGraphiQLAssets(),
      useHealthChecks(database),
      useRequestLog(logger),
      ...useRequestLimits(),
      useCompiledLineage(),
    ],
  });

  const server = http.createServer(yoga);
  const wsCleanup = serveGraphQLOverWebSocket(yoga, server, logger);

  let stopping: Promise<void> | undefined;
  return {
    yoga,
    services,
    database,
    logger,
    start: async () => {
      const { port } = await listen(server, config.port, config.host);
      const host = config.host.includes(":") ? `[${config.host}]` : config.host;
      return `http://${host}:${port}${yoga.graphqlEndpoint}`;
    },
    stop: () =>
      (stopping ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // Keep-alive connections become idle once their in-flight request is answered; close
        // them as they do, and cut whatever is still open when the grace period ends.
        const reaper = setInterval(() => server.closeIdleConnections(), 50);
        const grace = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
        server.closeIdleConnections();
        await wsCleanup.dispose();
        await closed;
        clearInterval(reaper);
        clearTimeout(grace);
        await database.close();
      })()),
  };
}

async function connectDatabase(config: Config, logger: Logger): Promise<Database> {
  try {
    if (config.migrateOnStart) {
      const { applied } = await migrateDatabase(config.databaseUrl);
      if (applied.length) logger.info({ applied }, "applied database migrations");
    }
    const database = openDatabase(config.databaseUrl, { readUrl: config.databaseReadUrl });
    await database.prisma.$queryRawUnsafe("SELECT 1");
    await database.reader.$queryRawUnsafe("SELECT 1");
    return database;
  } catch (error) {
    throw new DatabaseUnavailableError(config.databaseUrl, error);
  }
}

function yogaLogger(logger: Logger) {
  return {
    debug: (...args: unknown[]) => logger.debug({ args }, "yoga"),
    info: (...args: unknown[]) => logger.info({ args }, "yoga"),
    warn: (...args: unknown[]) => logger.warn({ args }, "yoga"),
    // Yoga logs every error it masks; the request log (src/request-log.ts) already reports those,
    // once per request, at error level only for our faults.
    error: (...args: unknown[]) => (args.every(wasPresented) ? undefined : logger.error({ args }, "yoga")),
  };
}
