import crypto from "node:crypto";
import http from "node:http";
import { createYoga, type YogaServerInstance } from "graphql-yoga";
import type { ProvgraphPlugin } from "../plugins/types";
import { type AuthMode, type AuthServices, authorizeHttpRequest, authSetupError, createAuthServices, type Principal, prepareAuth, principalOf, UnauthenticatedError, useAuthentication, useOperationAuthorization, useSubscriptionLeases, purposeOf, purposesOf, useRequestPurpose } from "./auth";
import type { Config } from "./config";
import { type Database, openDatabase } from "./db/client";
import { maskDatabaseUrl, providerOf, sqliteFilePath } from "./db/database-url";
import { lockSqliteFile } from "./db/sqlite-owner-lock";
import { migrateDatabase } from "./db/migrate";
import { serveGraphQLOverWebSocket } from "./http/graphql-ws";
import { useHealthChecks } from "./health";
import { watchEventLoop } from "./http/event-loop-watch";
import { useSpecExecutor } from "./http/spec-executor";
import { useCompiledQueries } from "./http/compiled-queries";
import { REQUEST_LIMITS, useRequestLimits } from "./limits";
import { useBoundedGraphQLBodies } from "./http/graphql-body";
import { corsOptions, guardRequests, isLoopbackAddress, type SocketPolicy, useCsrfPrevention, useIntrospection, useOriginCheck } from "./http/browser-safety";
import { useOperationChoice } from "./http/operation-choice";
import { GRAPHQL_PATH, isGraphQLPath, useUnknownRoutes } from "./http/unknown-route";
import { useEvidenceRoute } from "./http/evidence-route";
import { useSigningKeysRoute } from "./http/signing-keys-route";
import { useExplorer } from "./http/explorer-route";
import { renderLocalGraphiQL, useGraphiQLAssets } from "./http/graphiql";
import { answerClientErrors } from "./http/client-errors";
import { listen } from "./http/listen";
import { admitHeavyBodies, HeavyWorkQueue, useHeavyWorkAdmission } from "./http/admission";
import { type AuthorizeLineageRequest, createOpenLineage, type LineageRequestRecorded, type OpenLineage, useOpenLineageRoutes } from "./openlineage";
import { createLogger, type Logger } from "./logger";
import type * as MetricsRoom from "./metrics";
import type { ProvgraphMetrics } from "./metrics";
import { createFeedBroadcast } from "./pubsub";
import { requestIdOf, useRequestLog } from "./http/request-log";
import { useSharedSubscriptionResults } from "./http/shared-subscription-results";
import { cpuPhasePlugins, markedRequests } from "./http/cpu-phases-plugin";
import { useAnswerBytes } from "./http/answer-bytes";
import { writeLargeStringsAsBuffers } from "./http/large-string-writes";
import type { GraphQLContext } from "./schema/context";
import { presentError, wasPresented } from "./schema/error-presentation";
import { schema } from "./schema/index";
import { policyTagsOf, tagPurposesOf } from "./schema/policy";
import { taggedReadNoter } from "./schema/purpose-reads";
import { maskSecrets, registerSecretForMasking } from "./secret-masking";
import type { SigningKeys } from "./services/compliance";
import { createServices, type Services } from "./services/services";

/** A verifyEvidence document at least this long (characters) goes to its heavy-read thread as text: a few hundred kB parse in milliseconds. */
const RAW_JSON_MIN_CHARS = 1 << 20;

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
  /** The Prometheus metrics, when METRICS is not off (GET /metrics serves them). */
  metrics?: ProvgraphMetrics;
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

/** The signing keys configuration names (PROVGRAPH_SIGNING_KEY, PROVGRAPH_SIGNING_PREVIOUS_KEYS), as key objects. */
function signingKeysOf(config: Config): SigningKeys {
  return {
    current: config.signingKey ? crypto.createPrivateKey(config.signingKey) : null,
    previous: config.signingPreviousKeys.map((x) => crypto.createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" })),
  };
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
  /** connectionParams.purpose, checked against the principal's purposes (null: none stated). */
  purpose?: string | null;
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<App> {
  // A secret with no recognisable shape: masked by value wherever a line would carry it.
  if (config.erasureSecret) registerSecretForMasking(config.erasureSecret);
  if (config.signingKey) for (const line of config.signingKey.split("\n")) if (!line.startsWith("-----") && line.trim().length >= 16) registerSecretForMasking(line.trim());
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
  // Created first, its gauges read the feeds and the admission queue when scraped; off, nothing is counted
  // (and prom-client is not even loaded: start-up time).
  let services: Services;
  let heavyWork: HeavyWorkQueue;
  const metricsRoom = config.metrics === "off" ? undefined : (require("./metrics") as typeof MetricsRoom);
  const metrics =
    metricsRoom === undefined
      ? undefined
      : new metricsRoom.ProvgraphMetrics({
          feeds: () => services.feeds.stats(),
          heavyWork: () => heavyWork.stats(),
          database: () => ({ statements: database.statementCount(), pools: database.poolStats() }),
        });
  services = createServices(
    database,
    options.plugins,
    { queueLimit: config.feedQueueLimit, replayWindow: config.feedReplayWindow, broadcast, logger },
    { erasureSecret: config.erasureSecret, recordings: metrics, subjectKeyRules: { caseInsensitive: config.subjectKeysCaseInsensitive }, signingKeys: signingKeysOf(config), heavyReads: { threads: config.heavyReadThreads, budgetMs: config.queryBudgetMs, maxResultNodes: config.resultMaxNodes } },
  );
  const openLineage = createOpenLineage(
    {
      commits: services.commits,
      registry: services.registry,
      plugins: services.plugins,
      provider: database.provider,
      logger,
      subjectKeys: services.compliance.subjectKeys,
      observeResults: metrics && ((results) => metrics.openLineageResults(results)),
    },
    database.reader,
  );
  for (const invariant of openLineage.invariants) services.integrity.register(invariant);
  services.compliance.evidence.registerRunHistory(openLineage.runHistory);
  await services.feeds.start();
  // Started with the server: how long the event loop keeps callbacks waiting (logged past a bound, shown by /readyz).
  let eventLoop: ReturnType<typeof watchEventLoop> | undefined;
  const cpuPhaseMarks = cpuPhasePlugins();
  heavyWork = new HeavyWorkQueue({ concurrency: config.heavyConcurrency, queueDepth: config.heavyQueueDepth, maxWaitMs: config.heavyQueueWaitMs });
  // Every heavy body /graphql and the lineage routes read must keep this pace (src/http/bounded-body.ts).
  const bodyPace = { minBytesPerSecond: config.bodyMinBytesPerSecond, graceMs: config.bodyPaceGraceMs, fromBytes: config.heavyBodyBytes };
  const yoga: Yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    // No file uploads: a multipart body would be parsed by Yoga without the bounds below.
    multipart: false,
    // Only at /graphql itself: Yoga's GraphiQL answers a browser at any path that merely ends in it.
    graphiql: graphiql ? (request: Request) => (isGraphQLPath(new URL(request.url).pathname) ? { subscriptionsProtocol: "WS" as const, title: "provgraph" } : false) : false,
    renderGraphiQL: renderLocalGraphiQL,
    cors: corsOptions(corsOrigins) as Parameters<typeof createYoga>[0]["cors"],
    logging: yogaLogger(logger),
    context: (initial): GraphQLContext => {
      const { request, principal, transport, purpose } = initial as { request?: Request } & SocketContext;
      const actingAs = principal ?? principalOf(request);
      // Every request is authenticated before it runs (src/auth/http.ts, src/graphql-ws.ts); one that was not is refused, never opened.
      if (!actingAs) throw new UnauthenticatedError("MISSING");
      const context: GraphQLContext = { services, openLineage, auth, principal: actingAs, requestId: requestIdOf(request), transport: transport ?? "http", purpose: purpose ?? purposeOf(request), signal: request?.signal };
      // What policy-tag redaction reads: the tags guarding a subject and the purposes tags allow, batched per request (and per subscription event).
      context.policyTagsOf = policyTagsOf(context);
      context.tagPurposesOf = tagPurposesOf(context);
      // Tagged values read under the stated purpose go to the purpose audit.
      context.noteTaggedRead = taggedReadNoter({ principal: actingAs, purpose: context.purpose ?? null, requestId: context.requestId, policyTagsOf: context.policyTagsOf }, services.compliance.purposeAudit);
      return context;
    },
    maskedErrors: { maskError: (error) => presentError(error) },
    // One body limit for /graphql: declared lengths are refused at the socket (admitHeavyBodies),
    // streamed bodies as they are read (useBoundedGraphQLBodies reads every body /graphql takes),
    // both PAYLOAD_TOO_LARGE. Yoga's own limit would pipe each body through a stream of its own.
    maxRequestBodySize: false,
    plugins: [
      // The CPU budget's marks (PROVGRAPH_CPU_PHASES=1, the bench; none otherwise).
      ...cpuPhaseMarks.before,
      ...(graphiql ? [useGraphiQLAssets()] : []),
      // The web page: static files, before authentication (it holds no data; its requests are authenticated).
      useExplorer(),
      useHealthChecks(database, { onUnavailable: (error) => logger.warn({ err: error }, "readyz: the database is unavailable"), heavyWork: () => heavyWork.stats(), feeds: () => services.feeds.sharing(), eventLoop: () => eventLoop?.delay() }),
      // Its own access rule (METRICS), before authentication; then every request is counted from here.
      ...(metricsRoom && metrics && config.metrics !== "off" ? [metricsRoom.useMetricsRoute(metrics, config.metrics, auth), metricsRoom.useRequestMetrics(metrics)] : []),
      // Public keys are public: served before authentication, so a verifier needs no token.
      useSigningKeysRoute(services.compliance.signer),
      useOriginCheck(corsOrigins, logger),
      useAuthentication(auth),
      // The purpose a request states, checked against its token before anything reads under it (the routes below included).
      useRequestPurpose(),
      useCsrfPrevention(),
      useIntrospection(introspection),
      useOpenLineageRoutes(openLineage.ingestor, logger, {
        authorize: options.authorizeLineage ?? authorizeLineageWrites(auth),
        recorded: auditLineageWrites(auth),
        actorOf: (request) => actorOfPrincipal(principalOf(request)),
        bodyPace,
      }),
      useEvidenceRoute(services.compliance, services.heavyReads, auth, logger, heavyWork),
      // The last route: any other path is 404 NOT_FOUND, and only /graphql serves GraphQL.
      useUnknownRoutes(),
      useRequestLog(logger, schema),
      // Bodies and query strings parsed within their size and nesting bounds, before anything is built from them.
      useBoundedGraphQLBodies({ maxBytes: config.graphqlMaxBodyBytes, maxNesting: REQUEST_LIMITS.maxBodyNesting, pace: bodyPace }, {
        // A filed evidence document (megabytes) goes to the heavy-read thread that verifies it as text, checked there.
        arguments: [{ field: "verifyEvidence", argument: "document" }],
        minChars: RAW_JSON_MIN_CHARS,
        maxDepth: REQUEST_LIMITS.maxJsonDepth,
        check: (text, maxDepth) => services.heavyReads.run("checkJsonText", { text, maxDepth }),
      }),
      // Which operation to run, with a reason when none can be chosen (Yoga's own answer gives none).
      useOperationChoice(),
      // Before the cost limit and admission: an operation the token may not run is refused whole, before any of it runs.
      useOperationAuthorization(),
      ...useRequestLimits(),
      // Query answers in the order their fields were asked (the spec's rule); before the compiled executor, which replaces it for lineage.
      useSpecExecutor(),
      useCompiledQueries(),
      // After the cost limit, whose estimate says what is heavy, and after the compiled executor, which it wraps.
      useHeavyWorkAdmission(heavyWork),
      // Results are shared only between subscribers who may see the same: the same principal kind and scopes.
      useSharedSubscriptionResults(viewerKeyOf),
      // A subscription ends when its token is revoked or expires.
      useSubscriptionLeases(auth.watch),
      // Last of the result's plugins: the answer Yoga sends is serialised to bytes in pieces, not as one long string.
      useAnswerBytes(),
      ...cpuPhaseMarks.last,
    ],
  });

  const policy: SocketPolicy = { loopback, allowedHosts: config.allowedHosts ?? [], corsOrigins };
  // requireHostHeader off: an HTTP/1.1 request without a Host is refused by our own check (typed, ./http/request-target.ts).
  const server = http.createServer(
    { requireHostHeader: false },
    markedRequests(writeLargeStringsAsBuffers(guardRequests(admitHeavyBodies(yoga, heavyWork, { heavyBodyBytes: config.heavyBodyBytes, maxGraphQLBodyBytes: config.graphqlMaxBodyBytes }, logger), policy, logger))),
  );
  answerClientErrors(server, logger);
  const wsCleanup = serveGraphQLOverWebSocket(yoga, server, logger, { auth, policy, keepAliveMs: config.wsKeepAliveMs, maxOperations: config.wsMaxSubscriptions, maxMessageBytes: config.wsMaxMessageBytes, maxNesting: REQUEST_LIMITS.maxBodyNesting });

  let stopping: Promise<void> | undefined;
  return {
    yoga,
    services,
    openLineage,
    database,
    heavyWork,
    auth,
    metrics,
    authMode,
    logger,
    start: async () => {
      const { port } = await listen(server, config.port, config.host);
      if (authMode === "refused") {
        // Bound first so an address that is not ours is reported as such; closed in the same tick, before any connection is accepted.
        await new Promise((resolve) => server.close(resolve));
        throw authSetupError(config.host);
      }
      eventLoop ??= watchEventLoop(logger);
      // The heavy-read threads load while the first requests come in (a request never waits on its budget for them).
      services.heavyReads.warm().catch((error: unknown) => logger.error({ err: error }, "the heavy-read threads could not start"));
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
        await auth.watch.stop();
        await wsCleanup.dispose();
        await closed;
        clearInterval(reaper);
        clearTimeout(grace);
        await auth.authenticator.drain();
        // The purpose audit's last reads are written before the database closes.
        await services.compliance.purposeAudit.flush().catch((error) => logger.error({ err: error }, "the purpose audit's last reads could not be written"));
        // After the in-flight requests: their heavy reads have been answered; the threads end with their connections.
        await services.heavyReads.close();
        eventLoop?.stop();
        await database.close();
      })()),
  };
}

async function connectDatabase(config: Config, logger: Logger): Promise<Database> {
  // One process per SQLite file: taken before migrating, so a second process starting at the same time is refused too.
  const release = providerOf(config.databaseUrl) === "sqlite" ? lockSqliteFile(sqliteFilePath(config.databaseUrl)) : () => undefined;
  try {
    if (config.migrateOnStart) {
      const { applied, unknown } = await migrateDatabase(config.databaseUrl);
      if (applied.length) logger.info({ applied }, "applied database migrations");
      if (unknown.length) logger.warn({ unknown }, "the database has migrations this version of provgraph does not know: a newer version migrated it (see Upgrades in docs/operating/deployment.md)");
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

/** Who a request acts as, as the records it writes name them (a release's ledger entries). */
function actorOfPrincipal(principal: Principal | undefined) {
  return principal ? { name: principal.name, tokenId: principal.tokenId, purposes: purposesOf(principal) } : undefined;
}

/** What may change what a subscriber is allowed to see: its scopes (clearances included). */
function viewerKeyOf(context: unknown): string {
  const principal = (context as Partial<GraphQLContext>).principal;
  if (!principal) return "none";
  // The stated purpose too: tags that declare purposes let a value through only under one of them.
  const purpose = (context as Partial<GraphQLContext>).purpose ?? "";
  return principal.kind === "open" ? `open purpose:${purpose}` : `token:${[...principal.scopes].sort().join(" ")} purpose:${purpose}`;
}
