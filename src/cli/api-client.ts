import { CliError, ExitCode } from "./exit-codes";

/** Where a remote command sends its requests, and as whom. */
export interface RemoteOptions {
  /** The server's base URL (http://host:port), or its GraphQL endpoint (…/graphql). */
  url: string;
  /** An API token (pgt_…); absent in open mode. */
  token?: string;
}

/** How long one request may take before the command gives up on the server. */
const REQUEST_TIMEOUT_MS = 120_000;
/** 503 answers (OVERLOADED, DATABASE_UNAVAILABLE) of idempotent requests are retried this often, after their Retry-After. */
const RETRIES_ON_503 = 3;

interface GraphQLError {
  message: string;
  extensions?: { code?: string; field?: string; [key: string]: unknown };
}

/**
 * The public API as the command uses it: GraphQL on /graphql, the OpenLineage batch route and the
 * evidence route, with the caller's token. Every failure becomes a CliError with the exit code that
 * says what to fix (exit-codes.ts): the server cannot be reached, refused the token, or refused the request.
 */
export class ApiClient {
  readonly baseUrl: string;

  constructor(private readonly options: RemoteOptions) {
    this.baseUrl = baseUrlOf(options.url);
  }

  /** A query or mutation; its data, or a CliError naming the first error's code. */
  async graphql<T>(query: string, variables: Record<string, unknown> = {}, { idempotent = true } = {}): Promise<T> {
    const response = await this.send(`${this.baseUrl}/graphql`, { method: "POST", headers: { "content-type": "application/json", accept: "application/graphql-response+json, application/json" }, body: JSON.stringify({ query, variables }) }, idempotent);
    const body = await this.json<{ data?: T | null; errors?: GraphQLError[]; error?: { code?: string; message?: string } }>(response);
    if (body.errors?.length) throw refusal(body.errors[0], body.errors.length);
    if (body.data === undefined || body.data === null) {
      // A route's own error (a --url with a path provgraph does not serve: 404 NOT_FOUND, naming where the API is).
      const said = body.error?.message ? `: ${body.error.code ?? "ERROR"}: ${body.error.message}` : "";
      throw new CliError(`${this.baseUrl} answered no data (HTTP ${response.status})${said}`, ExitCode.UNREACHABLE);
    }
    return body.data;
  }

  /** OpenLineage events to POST /api/v1/lineage/batch: one result per event, in order. Events are idempotent (a resent one is a DUPLICATE). */
  async postLineageBatch(events: readonly unknown[]): Promise<LineageBatchAnswer> {
    const response = await this.send(`${this.baseUrl}/api/v1/lineage/batch`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(events) }, true);
    const body = await this.json<LineageBatchAnswer & { error?: { code: string; message: string } }>(response);
    if (!Array.isArray(body.results)) {
      // the whole request refused (a size limit, …): no per-event results
      throw new CliError(`the lineage route refused the batch: ${body.error ? `${body.error.code}: ${body.error.message}` : `HTTP ${response.status}`}`, ExitCode.REFUSED);
    }
    return body;
  }

  /** GET /api/v1/evidence/<artifactId>: the package's canonical text, as filed. */
  async evidence(artifactId: string, params: { field?: string; asOf?: string }): Promise<{ text: string; provable: boolean; sha256: string }> {
    const query = new URLSearchParams();
    if (params.field) query.set("field", params.field);
    if (params.asOf) query.set("asOf", params.asOf);
    const suffix = query.size ? `?${query}` : "";
    const response = await this.send(`${this.baseUrl}/api/v1/evidence/${encodeURIComponent(artifactId)}${suffix}`, { method: "GET" }, true);
    const text = await response.text();
    if (!response.ok) {
      const error = parseJson<{ error?: { code: string; message: string } }>(text)?.error;
      throw new CliError(error ? `${error.code}: ${error.message}` : `${this.baseUrl} answered HTTP ${response.status} for the evidence package`, error ? ExitCode.REFUSED : ExitCode.UNREACHABLE);
    }
    return { text, provable: response.headers.get("x-provgraph-provable") === "true", sha256: (response.headers.get("etag") ?? "").replace(/^"sha256:|"$/g, "") };
  }

  private async send(url: string, init: RequestInit, idempotent: boolean): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.options.token) headers.set("authorization", `Bearer ${this.options.token}`);
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(url, { ...init, headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      } catch (error) {
        throw new CliError(`cannot reach provgraph at ${this.baseUrl}: ${networkReason(error)}`, ExitCode.UNREACHABLE);
      }
      if (response.status === 401 || response.status === 403) throw await this.credentialsRefused(response);
      if (response.status === 503) {
        const wait = Math.min(30, Number(response.headers.get("retry-after")) || 2);
        if (idempotent && attempt < RETRIES_ON_503) {
          await response.body?.cancel();
          await new Promise((resolve) => setTimeout(resolve, wait * 1000));
          continue;
        }
        const error = (await this.json<{ errors?: GraphQLError[]; error?: { code: string; message: string } }>(response, false).catch(() => undefined)) ?? {};
        const reason = error.errors?.[0] ?? error.error;
        throw new CliError(`provgraph at ${this.baseUrl} is unavailable${reason ? `: ${"extensions" in reason ? reason.extensions?.code : (reason as { code: string }).code}: ${reason.message}` : ""} (retry later)`, ExitCode.UNREACHABLE);
      }
      return response;
    }
  }

  private async credentialsRefused(response: Response): Promise<CliError> {
    const body = await this.json<{ errors?: GraphQLError[] }>(response, false).catch(() => undefined);
    const error = body?.errors?.[0];
    const code = error?.extensions?.code ?? (response.status === 401 ? "UNAUTHENTICATED" : "FORBIDDEN");
    const hint = response.status === 401 ? (this.options.token ? "" : " (give one with --token or PROVGRAPH_TOKEN)") : "";
    return new CliError(`${code}: ${error?.message ?? `HTTP ${response.status}`}${hint}`, ExitCode.AUTH);
  }

  /** The body as JSON; a body that is not JSON means the URL is no provgraph server. */
  private async json<T>(response: Response, strict = true): Promise<T> {
    const text = await response.text();
    const parsed = parseJson<T>(text);
    if (parsed === undefined) {
      if (!strict) throw new Error("not JSON");
      throw new CliError(`${this.baseUrl} is not a provgraph server (HTTP ${response.status}, ${response.headers.get("content-type") ?? "no content type"})`, ExitCode.UNREACHABLE);
    }
    return parsed;
  }
}

export interface LineageEventResult {
  index: number;
  status: "STORED" | "DUPLICATE" | "REFUSED";
  runId?: string | null;
  error?: { code: string; message: string; pointer?: string; reason?: string } | null;
}

export interface LineageBatchAnswer {
  stored: number;
  duplicates: number;
  refused: number;
  results: LineageEventResult[];
}

/** http://host:4000, http://host:4000/ and http://host:4000/graphql all name the same server. */
export function baseUrlOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliError(`--url '${url}' is not a URL: expected e.g. http://127.0.0.1:4000`, ExitCode.USAGE);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new CliError(`--url '${url}' must be http:// or https://`, ExitCode.USAGE);
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "").replace(/\/graphql$/, "")}`;
}

function refusal(error: GraphQLError, count: number): CliError {
  const code = error.extensions?.code ?? "ERROR";
  const field = error.extensions?.field ? ` (${error.extensions.field})` : "";
  const more = count > 1 ? ` (and ${count - 1} more error${count > 2 ? "s" : ""})` : "";
  if (code === "UNAUTHENTICATED" || code === "FORBIDDEN") return new CliError(`${code}: ${error.message}`, ExitCode.AUTH);
  return new CliError(`${code}: ${error.message}${field}${more}`, ExitCode.REFUSED);
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if ((error as Error)?.name === "TimeoutError") return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  if (cause?.code === "ECONNREFUSED") return "connection refused (is the server running?)";
  if (cause?.code === "ENOTFOUND" || cause?.code === "EAI_AGAIN") return "unknown host";
  return cause?.message ?? (error as Error)?.message ?? String(error);
}

function parseJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
