import { randomUUID } from "node:crypto";
import type http from "node:http";
import { type DocumentNode, type ExecutionResult, GraphQLError, type GraphQLFormattedError, type GraphQLSchema } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import { WebSocket, WebSocketServer } from "ws";
import { jsonTextNestsDeeper } from "../limits/json-nesting";
import type { SocketContext, Yoga } from "../app";
import { type AuthServices, type Principal, statedPurpose, UnauthenticatedError } from "../auth";
import { refusalFor, refuseUpgrade, type SocketPolicy } from "./browser-safety";
import type { Logger } from "../logger";
import { logRequestOutcome } from "./request-log";
import type { GraphQLContext } from "../schema/context";
import { presentError } from "../schema/error-presentation";
import { DATABASE_RETRY_AFTER_SECONDS, databaseOutageOf } from "../services/errors";
import { formatCount, limitError } from "../limits";
import { sendSharedFrames, sharedPayloadOf } from "./shared-frames";
import { operationChoiceError } from "./operation-choice";
import type { SocketRefusal } from "./request-target";

/** Yoga's enveloped execute/subscribe, carried to graphql-ws in rootValue (Yoga's graphql-ws recipe). */
type EnvelopedRoot = Pick<ReturnType<Yoga["getEnveloped"]>, "execute" | "subscribe">;

/**
 * GraphQL over WebSocket (graphql-ws) on the HTTP server's port and GraphQL path, through the same
 * Yoga envelope as HTTP: the same parser, request limits, validation, context and error masking.
 * A document that cannot run (syntax, validation, a request limit) answers an `error` message for
 * that operation and leaves the socket open for the next one.
 *
 * Access: the upgrade is refused (HTTP 403) for a Host that is not ours or a cross-site Origin
 * (cross-site WebSocket hijacking). The token in `connectionParams.authorization` ("Bearer pgt_…")
 * is checked at connection — missing (once tokens are required), malformed, unknown, revoked or
 * expired closes the socket with 4401, a database that cannot be reached to check it with 1013 (try
 * again later) — and again for every operation, which runs with the token's
 * scopes (a token revoked or expired since the connection gets UNAUTHENTICATED for the operation,
 * and its live subscriptions end with it: src/auth/subscription-leases.ts). At most `maxOperations`
 * operations are open at once on one socket (subscriptions, and queries still running): one more is
 * answered TOO_MANY_SUBSCRIPTIONS for that operation, and the socket stays open.
 * Subscriptions run through the same envelope; a result shared by subscribers is encoded once; each result is sent before the next one is read
 * (graphql-ws awaits the socket), so a slow reader is held back by its own bounded feed queue.
 * `keepAliveMs`: a ping that often; a socket that answers none within the same time is closed (0: no pings).
 * Messages are bounded before they are parsed (docs: "Limits and budgets"): one larger than
 * `maxMessageBytes` (WS_MAX_MESSAGE_BYTES) closes the socket with 1009 (Message Too Big), one nesting
 * JSON deeper than `maxNesting` with 4400 and the reason `JSON_TOO_DEEP: …`.
 */
export function serveGraphQLOverWebSocket(
  yoga: Yoga,
  server: http.Server,
  logger: Logger,
  access: { auth: AuthServices; policy: SocketPolicy; keepAliveMs?: number; maxOperations?: number; maxMessageBytes: number; maxNesting: number },
): { dispose(): void | Promise<void> } {
  const { auth, policy, keepAliveMs = 12_000, maxOperations = 100 } = access;
  // noServer: the HTTP server's own errors (a busy port) stay with it instead of being re-emitted
  // to the WebSocket server, where graphql-ws prints them as an internal error.
  const wsServer = new WebSocketServer({ noServer: true, path: yoga.graphqlEndpoint, maxPayload: access.maxMessageBytes, WebSocket: boundedSocket(access.maxNesting, logger) });
  // Before graphql-ws's own listener: results shared by subscribers are sent as the bytes encoded once.
  wsServer.on("connection", (ws) => sendSharedFrames(ws));
  server.on("upgrade", (request, socket, head) => {
    const refusal = refusalFor(request, policy, true) ?? pathRefusal(request, yoga.graphqlEndpoint);
    if (refusal) {
      logger.info({ transport: "ws", code: refusal.code }, "WebSocket upgrade refused");
      return refuseUpgrade(socket, refusal);
    }
    wsServer.handleUpgrade(request, socket, head, (ws) => wsServer.emit("connection", ws, request));
  });
  return useServer(
    {
      onConnect: async (ctx) => {
        try {
          await auth.authenticator.authenticate(credentialsOf(ctx.connectionParams));
          return true;
        } catch (error) {
          if (databaseOutageOf(error)) {
            // The token could not be checked: 1013 Try Again Later (RFC 6455 registry), the code and when to retry in the reason.
            logger.warn({ transport: "ws", code: "DATABASE_UNAVAILABLE", err: error }, "WebSocket connection refused: the database is unavailable");
            ctx.extra.socket.close(1013, `DATABASE_UNAVAILABLE: the database is unavailable; retry in ${DATABASE_RETRY_AFTER_SECONDS} s`);
            return false;
          }
          if (!(error instanceof UnauthenticatedError)) throw error;
          logger.info({ transport: "ws", code: error.code, reason: error.reason }, "WebSocket connection refused");
          // graphql-ws would close with 4403 Forbidden; an authentication failure is 4401, with the reason.
          ctx.extra.socket.close(4401, closeReason(error));
          return false;
        }
      },
      execute: (args) => (args.rootValue as EnvelopedRoot).execute(args as never),
      subscribe: (args) => (args.rootValue as EnvelopedRoot).subscribe(args as never),
      onSubscribe: async (ctx, _id, params) => {
        // graphql-ws has counted this operation in already.
        const open = Object.keys(ctx.subscriptions).length;
        if (open > maxOperations) {
          return refuse(logger, [limitError("TOO_MANY_SUBSCRIPTIONS", `This socket has ${formatCount(maxOperations)} operations open (subscriptions, and queries still running); at most ${formatCount(maxOperations)} are accepted at once. Complete one first, or open another socket.`, { limit: maxOperations })], "TOO_MANY_SUBSCRIPTIONS");
        }
        let principal: Principal;
        try {
          principal = await auth.authenticator.authenticate(credentialsOf(ctx.connectionParams));
        } catch (error) {
          if (databaseOutageOf(error)) return refuse(logger, [error], "DATABASE_UNAVAILABLE");
          if (!(error instanceof UnauthenticatedError)) throw error;
          return refuse(logger, [error], "UNAUTHENTICATED");
        }
        // The purpose the connection states (connectionParams.purpose), one its token carries.
        let purpose: string | null;
        try {
          purpose = statedPurpose(principal, ctx.connectionParams?.purpose, "connectionParams.purpose");
        } catch (error) {
          return refuse(logger, [error], "PURPOSE_NOT_GRANTED");
        }
        const socketContext: SocketContext = { principal, transport: "ws", purpose };
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
          ...socketContext,
        });
        let document: DocumentNode;
        try {
          document = parse(params.query);
        } catch (error) {
          return refuse(logger, [error], "GRAPHQL_PARSE_FAILED", schema);
        }
        // graphql-ws would answer "Unable to identify operation", without a code.
        const choice = operationChoiceError(document, params.operationName);
        if (choice) return refuse(logger, [choice], "OPERATION_RESOLUTION_FAILURE", schema);
        let errors: readonly GraphQLError[];
        try {
          errors = validate(schema, document);
        } catch (error) {
          return refuse(logger, [error], "GRAPHQL_VALIDATION_FAILED", schema);
        }
        if (errors.length) return refuse(logger, errors, "GRAPHQL_VALIDATION_FAILED", schema);
        return {
          schema,
          operationName: params.operationName,
          document,
          variableValues: params.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        };
      },
      onNext: (_ctx, _id, _payload, args, result: ExecutionResult) => {
        // A result shared by other subscribers is encoded once for all of them (./shared-frames.ts).
        if (!result.errors?.length) return sharedPayloadOf(result);
        logRequestOutcome(logger, (args.contextValue as GraphQLContext).requestId, "ws", result.errors, args.schema);
        return { ...result, errors: result.errors.map(formatForSocket) };
      },
    },
    wsServer,
    keepAliveMs > 0 ? keepAliveMs : Number.POSITIVE_INFINITY,
  );
}

/**
 * The sockets of the graphql-ws server: a message is checked for JSON nesting on its raw bytes
 * before graphql-ws parses it (a refused one closes the socket with 4400, graphql-ws's code for a
 * bad message); so is a message of a type only a server sends (connection_ack, next, error), which
 * graphql-ws would take for a fault of its own (closing with 4500 "Internal server error" and
 * printing a stack) where the protocol says 4400; a message over maxPayload, which ws refuses
 * itself (closing with 1009), is logged here rather than as an internal error.
 */
function boundedSocket(maxNesting: number, logger: Logger): typeof WebSocket {
  return class BoundedWebSocket extends WebSocket {
    override emit(event: string | symbol, ...args: unknown[]): boolean {
      if (event === "message") {
        const data = args[0];
        const bytes = Buffer.isBuffer(data) ? data : data instanceof ArrayBuffer ? new Uint8Array(data) : Buffer.concat(data as Buffer[]);
        if (jsonTextNestsDeeper(bytes, maxNesting)) {
          logger.info({ transport: "ws", code: "JSON_TOO_DEEP", limit: maxNesting }, "WebSocket message refused");
          this.close(4400, `JSON_TOO_DEEP: a message nests objects and arrays more than ${maxNesting} levels deep`);
          return true;
        }
        const type = serverOnlyTypeOf(bytes);
        if (type) {
          logger.info({ transport: "ws", code: "UNEXPECTED_MESSAGE", type }, "WebSocket message refused");
          this.close(4400, `Unexpected message of type ${type} received: only a server sends it`);
          return true;
        }
      }
      if (event === "error" && (args[0] as { code?: string } | undefined)?.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") {
        logger.info({ transport: "ws", code: "PAYLOAD_TOO_LARGE" }, "WebSocket message refused: larger than WS_MAX_MESSAGE_BYTES");
        return true;
      }
      return super.emit(event, ...args);
    }
  };
}

/** The message types of graphql-transport-ws that only a server sends. */
const SERVER_ONLY_TYPES = ["connection_ack", "next", "error"] as const;
/** What the bytes of such a message hold: one of the names in quotes, or a `\u` escape that may spell one. */
const SERVER_ONLY_MARKS = [...SERVER_ONLY_TYPES.map((type) => Buffer.from(`"${type}"`)), Buffer.from("\\u")];

/**
 * The type of a message that is one only a server sends, else undefined. Only a message whose bytes hold
 * one of those names in quotes (or an escape) is parsed here (graphql-ws parses every message itself), so
 * a client's subscribe, ping and complete messages cost a byte search.
 */
function serverOnlyTypeOf(bytes: Uint8Array): (typeof SERVER_ONLY_TYPES)[number] | undefined {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!SERVER_ONLY_MARKS.some((mark) => buffer.includes(mark))) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(buffer.toString("utf8"));
  } catch {
    return undefined; // graphql-ws refuses it as no JSON (4400)
  }
  const type = (message as { type?: unknown } | null)?.type;
  return SERVER_ONLY_TYPES.find((known) => known === type);
}

/** connectionParams.authorization ("Bearer pgt_…" or the bare token); a value that is no string is malformed. */
function credentialsOf(connectionParams: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const value = connectionParams?.authorization ?? connectionParams?.Authorization;
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : "malformed";
}

/** A WebSocket close reason holds at most 123 bytes. */
function closeReason(error: UnauthenticatedError): string {
  const message = error.reason === "MISSING" ? "this server requires an API token: send connectionParams.authorization: 'Bearer pgt_…'" : error.message;
  return `Unauthorized (${error.reason}): ${message}`;
}

/** The `error` message for an operation that cannot run: presented errors, each with a code. */
/** An upgrade to a path other than the GraphQL endpoint: 404, as HTTP answers such a path (ws itself answers a bare 400). */
function pathRefusal(request: http.IncomingMessage, endpoint: string): SocketRefusal | undefined {
  const pathname = (request.url ?? "").split("?")[0];
  if (pathname === endpoint) return undefined;
  const shown = pathname.length > 200 ? `${pathname.slice(0, 200)}…` : pathname;
  return { status: 404, code: "NOT_FOUND", message: `no WebSocket is served at ${shown}: graphql-ws is at ${endpoint}` };
}

function refuse(logger: Logger, errors: readonly unknown[], defaultCode: string, schema?: GraphQLSchema): GraphQLError[] {
  const refused = errors.map((error) => {
    const shown = presentError(error);
    // HTTP status hints mean nothing on a socket.
    const { http: _http, ...extensions } = shown.extensions;
    return new GraphQLError(shown.message, { nodes: shown.nodes, source: shown.source, positions: shown.positions, extensions: { ...extensions, code: extensions.code ?? defaultCode } });
  });
  logRequestOutcome(logger, randomUUID(), "ws", refused, schema);
  return refused;
}

function formatForSocket(error: GraphQLError): GraphQLFormattedError {
  const { http: _http, ...extensions } = error.extensions ?? {};
  return { ...error.toJSON(), extensions };
}
