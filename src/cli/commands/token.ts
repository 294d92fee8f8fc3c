import os from "node:os";
import { type ApiTokenRecord, AuditLog, generateTokenSecret, isTokenId, statusOf, TokenStore } from "../../auth";
import { openDatabase } from "../../db/client";
import { maskDatabaseUrl } from "../../db/database-url";
import { migrateDatabase } from "../../db/migrate";
import { DomainError } from "../../services/errors";
import { CliError, ExitCode } from "../exit-codes";
import { localConfig } from "../local-config";
import type { Output } from "../output";
import { formatTable } from "../table";

/**
 * `provgraph token create|list|revoke|generate`: API tokens on DATABASE_URL (the database the server
 * uses; it may be running), through the same token store and audit trail as the API. `create` prints the
 * token alone on stdout, once, and what it created on stderr; creating and revoking are audited as cli:<user>.
 */
export async function token(command: "create" | "list" | "revoke", args: { scopes?: string[]; name?: string; expires?: string; target?: string }, out: Output): Promise<number> {
  const config = localConfig();
  if (config.migrateOnStart) await migrateDatabase(config.databaseUrl).catch((error: Error) => Promise.reject(new CliError(`cannot use database ${maskDatabaseUrl(config.databaseUrl)}: ${error.message}`, ExitCode.LOCAL)));
  const database = openDatabase(config.databaseUrl);
  const tokens = new TokenStore(database.prisma);
  const audit = new AuditLog(database.prisma);
  const actor = `cli:${os.userInfo().username}`;
  try {
    switch (command) {
      case "create": {
        const scopes = (args.scopes ?? []).flatMap((scope) => scope.split(",")).filter((scope) => scope !== "");
        if (scopes.length === 0) throw new CliError("token create needs at least one --scope", ExitCode.USAGE);
        const expiresAt = args.expires ? parseExpiry(args.expires) : null;
        const { secret, token } = await tokens.create({ name: args.name!, scopes, expiresAt, createdBy: actor });
        await audit.append({ actor, tokenId: null, via: "CLI", action: "createApiToken", targets: [token.id], outcome: "OK", requestId: null });
        out.stdout(secret);
        out.stderr(
          `created ${token.id} '${token.name}' (${token.scopes.join(", ")}), ${token.expiresAt ? `expires ${token.expiresAt.toISOString()}` : "never expires"}, on ${maskDatabaseUrl(config.databaseUrl)}.\n` +
            "The token, printed on stdout, is shown only now (only its hash is stored): keep it in your secret store.",
        );
        return ExitCode.OK;
      }
      case "list": {
        const date = (value: Date | null) => (value ? value.toISOString().replace(/\.\d{3}Z$/, "Z") : "-");
        const rows = (await allTokens(tokens)).map((token) => [token.id, token.name, token.scopes.join(","), statusOf(token), date(token.createdAt), token.createdBy, date(token.lastUsedAt), date(token.expiresAt)]);
        out.stdout(formatTable(["ID", "NAME", "SCOPES", "STATUS", "CREATED", "CREATED BY", "LAST USED", "EXPIRES"], rows));
        return ExitCode.OK;
      }
      case "revoke": {
        const token = await resolveToken(tokens, args.target!);
        const revoked = await tokens.revoke(token.id);
        await audit.append({ actor, tokenId: null, via: "CLI", action: "revokeApiToken", targets: [revoked.id], outcome: "OK", requestId: null });
        out.stdout(`revoked ${revoked.id} '${revoked.name}' at ${revoked.revokedAt!.toISOString()} (servers sharing this database refuse it within 2 s).`);
        return ExitCode.OK;
      }
    }
  } catch (error) {
    // The store's own refusals (an unknown scope, a name too long, …) are the caller's mistake, said as the API says them.
    if (error instanceof DomainError) throw new CliError(error.message, ExitCode.USAGE);
    throw error;
  } finally {
    await database.close();
  }
}

/** A fresh token, not stored: for PROVGRAPH_BOOTSTRAP_TOKEN. */
export function generateToken(out: Output): number {
  out.stdout(generateTokenSecret());
  return ExitCode.OK;
}

function parseExpiry(raw: string): Date {
  const relative = /^(\d{1,6})([dhm])$/.exec(raw.trim());
  if (relative) {
    const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[relative[2] as "d" | "h" | "m"];
    return new Date(Date.now() + Number(relative[1]) * unit);
  }
  const date = new Date(raw);
  if (Number.isNaN(date.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(raw.trim())) throw new CliError(`--expires '${raw}' is neither a duration (30d, 12h, 90m) nor an ISO date`, ExitCode.USAGE);
  return date;
}

async function allTokens(tokens: TokenStore): Promise<ApiTokenRecord[]> {
  const all: ApiTokenRecord[] = [];
  let after: ApiTokenRecord["id"] | undefined;
  for (;;) {
    const page = await tokens.list({ after, limit: 500, inverted: false });
    all.push(...page);
    if (page.length < 500) return all;
    after = page[page.length - 1].id;
  }
}

async function resolveToken(tokens: TokenStore, target: string): Promise<ApiTokenRecord> {
  if (isTokenId(target)) {
    const token = await tokens.byId(target);
    if (!token) throw new CliError(`no token has the id ${target}`, ExitCode.REFUSED);
    return token;
  }
  if (target.startsWith("pgt_")) throw new CliError("that is a token's secret, not its id or name: `provgraph token list` shows ids", ExitCode.USAGE);
  const active = (await tokens.byName(target)).filter((token) => statusOf(token) === "ACTIVE");
  if (active.length === 1) return active[0];
  if (active.length === 0) throw new CliError(`no active token is named '${target}'`, ExitCode.REFUSED);
  throw new CliError(`${active.length} active tokens are named '${target}' (${active.map((token) => token.id).join(", ")}): revoke one by id`, ExitCode.REFUSED);
}
