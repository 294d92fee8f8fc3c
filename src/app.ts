import http from "node:http";
import { createYoga, type YogaServerInstance } from "graphql-yoga";
import type { ProvgraphPlugin } from "../plugins/types";
import { type AuthMode, type AuthServices, authorizeHttpRequest, authSetupError, createAuthServices, type Principal, prepareAuth, principalOf, UnauthenticatedError, useAuthentication } from "./auth";
import type { Config } from "./config";
import { type Database, openDatabase } from "./db/client";
import { maskDatabaseUrl, providerOf, sqliteFilePath } from "./db/database-url";
import { lockSqliteFile } from "./db/sqlite-owner-lock";
import { migrateDatabase } from "./db/migrate";
import { serveGraphQLOverWebSocket } from "./http/graphql-ws";
import { useHealthChecks } from "./health";
import { useCompiledLineage } from "./http/compiled-lineage";
import { useRequestLimits } from "./limits";
import { corsOptions, guardRequests, isLoopbackAddress, type SocketPolicy, useCsrfPrevention, useIntrospection, useOriginCheck } from "./http/browser-safety";
import { useEvidenceRoute } from "./http/evidence-route";
import { renderLocalGraphiQL, useGraphiQLAssets } from "./http/graphiql";
import { listen } from "./http/listen";
import { admitHeavyBodies, HeavyWorkQueue, useHeavyWorkAdmission } from "./http/admission";
import { type AuthorizeLineageRequest, createOpenLineage, type LineageRequestRecorded, type OpenLineage, useOpenLineageRoutes } from "./openlineage";
import { createLogger, type Logger } from "./logger";
import { createFeedBroadcast } from "./pubsub";
import { requestIdOf, useRequestLog } from "./http/request-log";
import { useSharedSubscriptionResults } from "./http/shared-subscription-results";
import type { GraphQLContext } from "./schema/context";
import { presentError, wasPresented } from "./schema/error-presentation";
import { schema } from "./schema/index";
import { policyTagsOf } from "./schema/policy";
import { maskSecrets, registerSecretForMasking } from "./secret-masking";
import { createServices, type Services } from "./services/services";

export type Yoga = YogaServerInstance<Record<string, unknown>, GraphQLContext>;

export interface App {
  yoga: Yoga;
  services: Services;
  /** OpenLineage ingestion (the /api/v1/lineage routes and ingestOpenLineageEvents use it). */
  openLineage: OpenLineage;
  database: Database;
  /** Admission control of heavy work (its stats: what runs, waits, was refused). */
  heavyWork: HeavyWorkQueue;
  auth: AuthServices;
  /**
   * "open" (loopback, no token has ever existed: every request acts as admin), "tokens", or "refused"
   * (a public HOST and no token: start() fails with AuthSetupError), as decided at start-up.
   */
  authMode: AuthMode;
  logger: Logger;
  /**
   * Listen on config.host:config.port (0 = any free port); resolves with the GraphQL URL. Rejects
   * with AuthSetupError, having served nothing, when authMode is "refused".
   */
  start(): Promise<string>;
  /** Stop accepting, end subscriptions, let in-flight requests finish (up to the grace period), close the database. */
  stop(): Promise<void>;
}

/** The database could not be opened, migrated or reached at start-up. */
export class DatabaseUnavailableError extends Error {
  constructor(url: string, cause: unknown) {
    super(`cannot use database ${maskDatabaseUrl(url)}: ${maskSecrets((cause as Error)?.message ?? String(cause))}`);
    this.name = "DatabaseUnavailableError";
  }
}

export interface AppOptions {
  logger?: Logger;
  /** The recording pipeline's plugins (default: plugins/registry.ts defaultPlugins). */
  plugins?: readonly ProvgraphPlugin[];
  /** Who may post to /api/v1/lineage (default: a token with the write scope, as for recordExecution). */
  authorizeLineage?: AuthorizeLineageRequest;
  /** Timings of token checks (tests): see src/auth/authenticator.ts. */
  auth?: { now?: () => number; tokenCacheMs?: number; openModeProbeMs?: number; lastUsedIntervalMs?: number };
}

/** What graphql-ws (src/graphql-ws.ts) adds to Yoga's initial context; HTTP requests carry neither. */
export interface SocketContext {
  principal?: Principal;
  transport?: "ws";
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<App> {
  // A secret with no recognisable shape: masked by value wherever a line would carry it.
  if (config.erasureSecret) registerSecretForMasking(config.erasureSecret);
  const logger = options.logger ?? createLogger(config.logLevel);
  const database = await connectDatabase(config, logger);
  const loopback = isLoopbackAddress(config.host);
  const auth = createAuthServices(database, { ...options.auth, loopback, logger });
  let authMode: AuthMode;
  let broadcast;
  try {
    authMode = await prepareAuth(auth, { host: config.host, loopback, bootstrapToken: config.bootstrapToken }, logger);
    broadcast = await createFeedBroadcast(config.redisUrl, logger);
  } catch (error) {
    await database.close();
    throw error;
  }
  // Developer conveniences that map the API for anyone: on by default only where only this machine can reach them.
  const graphiql = config.graphiql ?? loopback;
  const introspection = config.introspection ?? loopback;
  const corsOrigins = config.corsOrigins ?? [];
  const services = createServices(
    database,
    options.plugins,
    { queueLimit: config.feedQueueLimit, replayWindow: config.feedReplayWindow, broadcast, logger },
    { erasureSecret: config.erasureSecret },
  );
  const openLineage = createOpenLineage(
    { commits: services.commits, registry: services.registry, plugins: services.plugins, provider: database.provider, logger, subjectKeys: services.compliance.subjectKeys },
    database.reader,
  );
  for (const invariant of openLineage.invariants) services.integrity.register(invariant);
  await services.feeds.start();
  const heavyWork = new HeavyWorkQueue({ concurrency: config.heavyConcurrency, queueDepth: config.heavyQueueDepth, maxWaitMs: config.heavyQueueWaitMs });
  const yoga: Yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    graphiql: graphiql ? { subscriptionsProtocol: "WS", title: "provgraph" } : false,
    renderGraphiQL: renderLocalGraphiQL,
    cors: corsOptions(corsOrigins) as Parameters<typeof createYoga>[0]["cors"],
    logging: yogaLogger(logger),
    context: (initial): GraphQLContext => {
      const { request, principal, transport } = initial as { request?: Request } & SocketContext;
      const actingAs = principal ?? principalOf(request);
      // Every request is authenticated before it runs (src/auth/http.ts, src/graphql-ws.ts); one that was not is refused, never opened.
      if (!actingAs) throw new UnauthenticatedError("MISSING");
      const context: GraphQLContext = { services, openLineage, auth, principal: actingAs, requestId: requestIdOf(request), transport: transport ?? "http" };
      // What policy-tag redaction reads: the tags guarding a subject, batched per request (and per subscription event).
      context.policyTagsOf = policyTagsOf(context);
      return context;
    },
    maskedErrors: { maskError: (error) => presentError(error) },
    plugins: [
      ...(graphiql ? [useGraphiQLAssets()] : []),
      useHealthChecks(database, { onUnavailable: (error) => logger.warn({ err: error }, "readyz: the database is unavailable"), heavyWork: () => heavyWork.stats() }),
      useOriginCheck(corsOrigins, logger),
      useAuthentication(auth),
      useCsrfPrevention(),
      useIntrospection(introspection),
      useOpenLineageRoutes(openLineage.ingestor, logger, options.authorizeLineage ?? authorizeLineageWrites(auth), auditLineageWrites(auth)),
      useEvidenceRoute(services.compliance.evidence, auth, logger, heavyWork),
      useRequestLog(logger),
      ...useRequestLimits(),
      useCompiledLineage(),
      // After the cost limit, whose estimate says what is heavy, and after the compiled executor, which it wraps.
      useHeavyWorkAdmission(heavyWork),
      // Results are shared only between subscribers who may see the same: the same principal kind and scopes.
      useSharedSubscriptionResults(viewerKeyOf),
    ],
  });

  const policy: SocketPolicy = { loopback, allowedHosts: config.allowedHosts ?? [], corsOrigins };
  const server = http.createServer(guardRequests(admitHeavyBodies(yoga, heavyWork, { heavyBodyBytes: config.heavyBodyBytes, maxGraphQLBodyBytes: config.graphqlMaxBodyBytes }, logger), policy, logger));
  const wsCleanup = serveGraphQLOverWebSocket(yoga, server, logger, { auth, policy, keepAliveMs: config.wsKeepAliveMs });

  let stopping: Promise<void> | undefined;
  return {
    yoga,
    services,
    openLineage,
    database,
    heavyWork,
    auth,
    authMode,
    logger,
    start: async () => {
      const { port } = await listen(server, config.port, config.host);
      if (authMode === "refused") {
        // Bound first so an address that is not ours is reported as such; closed in the same tick, before any connection is accepted.
        await new Promise((resolve) => server.close(resolve));
        throw authSetupError(config.host);
      }
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
        // Subscriptions end first (FEED_CLOSED), so SSE streams finish instead of holding the grace period.
        await services.feeds.stop();
        await wsCleanup.dispose();
        await closed;
        clearInterval(reaper);
        clearTimeout(grace);
        await auth.authenticator.drain();
        await database.close();
      })()),
  };
}

async function connectDatabase(config: Config, logger: Logger): Promise<Database> {
  // One process per SQLite file: taken before migrating, so a second process starting at the same time is refused too.
  const release = providerOf(config.databaseUrl) === "sqlite" ? lockSqliteFile(sqliteFilePath(config.databaseUrl)) : () => undefined;
  try {
    if (config.migrateOnStart) {
      const { applied } = await migrateDatabase(config.databaseUrl);
      if (applied.length) logger.info({ applied }, "applied database migrations");
    }
    const database = openDatabase(config.databaseUrl, { readUrl: config.databaseReadUrl, sqliteSynchronous: config.sqliteSynchronous });
    await database.prisma.$queryRawUnsafe("SELECT 1");
    await database.reader.$queryRawUnsafe("SELECT 1");
    const close = database.close;
    database.close = () => close().finally(release);
    return database;
  } catch (error) {
    release();
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

/** The OpenLineage routes take the same Bearer tokens as /graphql and need the write scope (a 401/403 answer otherwise). */
function authorizeLineageWrites(auth: AuthServices): AuthorizeLineageRequest {
  return async (request) => {
    const authorization = await authorizeHttpRequest(auth, request, "write");
    return authorization.ok ? undefined : authorization.response;
  };
}

/**
 * Every write by a token leaves an audit entry (as GraphQL mutations do): who, the route, the runs
 * its events named, and the outcome (OK, PARTIAL when some events were refused, or the refusal's
 * code when all were). Open-mode writes are not audited, as for recordExecution.
 */
function auditLineageWrites(auth: AuthServices): LineageRequestRecorded {
  return async (request, route, results) => {
    const principal = principalOf(request);
    if (!principal || principal.kind !== "token") return;
    const refused = results.filter((r) => r.status === "REFUSED");
    const outcome = refused.length === 0 ? "OK" : refused.length < results.length ? "PARTIAL" : (refused[0].error?.code ?? "REFUSED");
    const targets = [...new Set(results.flatMap((r) => (r.runId ? [r.runId] : [])))];
    await auth.audit.append({ actor: principal.name, tokenId: principal.tokenId, via: "HTTP", action: `POST ${route}`, targets, outcome, requestId: requestIdOf(request) });
  };
}

/** What may change what a subscriber is allowed to see: its scopes (clearances included). */
function viewerKeyOf(context: unknown): string {
  const principal = (context as Partial<GraphQLContext>).principal;
  if (!principal) return "none";
  return principal.kind === "open" ? "open" : `token:${[...principal.scopes].sort().join(" ")}`;
}
