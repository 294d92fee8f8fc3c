import { randomUUID } from "node:crypto";
import http from "node:http";
import { costLimitPlugin } from "@escape.tech/graphql-armor-cost-limit";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { GraphQLError } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import { createYoga, type YogaServerInstance } from "graphql-yoga";
import { WebSocketServer } from "ws";
import type { ProvgraphPlugin } from "../plugins/types";
import type { Config } from "./config";
import { type Database, openDatabase } from "./db/client";
import { maskDatabaseUrl } from "./db/database-url";
import { migrateDatabase } from "./db/migrate";
import { useHealthChecks } from "./health";
import { renderLocalGraphiQL, useGraphiQLAssets } from "./http/graphiql";
import { listen } from "./http/listen";
import { createLogger, type Logger } from "./logger";
import type { GraphQLContext } from "./schema/context";
import { presentError } from "./schema/error-presentation";
import { schema } from "./schema/index";
import { createServices, type Services } from "./services/services";

/** Query limits: deep or wide queries are refused before they run. */
export const MAX_QUERY_DEPTH = 15;
export const MAX_QUERY_COST = 50_000;

/** Yoga's enveloped execute/subscribe, carried to graphql-ws in rootValue (Yoga's graphql-ws recipe). */
type EnvelopedRoot = Pick<ReturnType<Yoga["getEnveloped"]>, "execute" | "subscribe">;

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
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const database = await connectDatabase(config, logger);
  const services = createServices(database, options.plugins);
  const yoga: Yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    graphiql: { subscriptionsProtocol: "WS", title: "provgraph" },
    renderGraphiQL: renderLocalGraphiQL,
    logging: yogaLogger(logger),
    context: (): GraphQLContext => ({ services, requestId: randomUUID() }),
    maskedErrors: { maskError: (error) => presentError(error, logger) },
    plugins: [
      useGraphiQLAssets(),
      useHealthChecks(database),
      maxDepthPlugin({ n: MAX_QUERY_DEPTH, exposeLimits: true }),
      costLimitPlugin({ maxCost: MAX_QUERY_COST, exposeLimits: true }),
    ],
  });

  const server = http.createServer(yoga);
  // noServer: the HTTP server's own errors (a busy port) stay with it instead of being re-emitted
  // to the WebSocket server, where graphql-ws prints them as an internal error.
  const wsServer = new WebSocketServer({ noServer: true, path: yoga.graphqlEndpoint });
  server.on("upgrade", (request, socket, head) => wsServer.handleUpgrade(request, socket, head, (ws) => wsServer.emit("connection", ws, request)));
  const wsCleanup = useServer(
    {
      execute: (args) => (args.rootValue as EnvelopedRoot).execute(args as never),
      subscribe: (args) => (args.rootValue as EnvelopedRoot).subscribe(args as never),
      onSubscribe: async (ctx, _id, params) => {
        const { schema: envelopedSchema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
        });
        const args = {
          schema: envelopedSchema,
          operationName: params.operationName,
          document: parse(params.query),
          variableValues: params.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        };
        const errors = validate(args.schema, args.document);
        if (errors.length) return errors;
        return args;
      },
    },
    wsServer,
  );

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
    const database = openDatabase(config.databaseUrl);
    await database.prisma.$queryRawUnsafe("SELECT 1");
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
    // Errors sent to a client (a GraphQLError with a code) are the client's to read, not ours.
    error: (...args: unknown[]) =>
      args.some((arg) => arg instanceof GraphQLError && arg.extensions?.code) ? logger.debug({ args }, "yoga") : logger.error({ args }, "yoga"),
  };
}
