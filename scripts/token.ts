// npm run token -- create --scope write --name ci [--expires 30d | --expires 2027-01-01]
//                  list
//                  revoke <tok_… id | name>
//                  generate
// API tokens on DATABASE_URL (SQLite by default, PostgreSQL by URL), the same database the server
// uses. `create` prints the token alone on stdout, once (capture it with `npm run -s token -- create …`),
// and what it created on stderr. `generate` prints a fresh token without storing it, for
// PROVGRAPH_BOOTSTRAP_TOKEN. Creating and revoking are recorded in the audit trail as cli:<user>.
import os from "node:os";
import { parseArgs } from "node:util";
import { type ApiTokenRecord, AuditLog, generateTokenSecret, isTokenId, statusOf, TokenStore } from "../src/auth";
import { loadConfig } from "../src/config";
import { openDatabase } from "../src/db/client";
import { maskDatabaseUrl } from "../src/db/database-url";
import { migrateDatabase } from "../src/db/migrate";
import { maskSecrets } from "../src/secret-masking";
import { DomainError } from "../src/services/errors";

const USAGE = `usage: npm run token -- create --scope <read|write|admin|clearance:TAG> [--scope …] --name <name> [--expires <30d|12h|ISO date>]
       npm run token -- list
       npm run token -- revoke <tok_… id | name>
       npm run token -- generate`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { scope: { type: "string", multiple: true }, name: { type: "string" }, expires: { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stderr.write(`${USAGE}\n`);
    if (!command && !values.help) process.exitCode = 2;
    return;
  }
  if (command === "generate") {
    process.stdout.write(`${generateTokenSecret()}\n`);
    return;
  }
  if (!["create", "list", "revoke"].includes(command)) throw new UsageError(`unknown command '${command}'`);
  const config = loadConfig();
  if (config.migrateOnStart) await migrateDatabase(config.databaseUrl);
  const database = openDatabase(config.databaseUrl);
  const tokens = new TokenStore(database.prisma);
  const audit = new AuditLog(database.prisma);
  const actor = `cli:${os.userInfo().username}`;
  try {
    switch (command) {
      case "create": {
        if (!values.name) throw new UsageError("create needs --name");
        const scopes = (values.scope ?? []).flatMap((scope) => scope.split(",")).filter((scope) => scope !== "");
        if (scopes.length === 0) throw new UsageError("create needs at least one --scope");
        const expiresAt = values.expires ? parseExpiry(values.expires) : null;
        const { secret, token } = await tokens.create({ name: values.name, scopes, expiresAt, createdBy: actor });
        await audit.append({ actor, tokenId: null, via: "CLI", action: "createApiToken", targets: [token.id], outcome: "OK", requestId: null });
        process.stdout.write(`${secret}\n`);
        process.stderr.write(
          `created ${token.id} '${token.name}' (${token.scopes.join(", ")}), ${token.expiresAt ? `expires ${token.expiresAt.toISOString()}` : "never expires"}, on ${maskDatabaseUrl(config.databaseUrl)}.\n` +
            "The token, printed on stdout, is shown only now (only its hash is stored): keep it in your secret store.\n",
        );
        return;
      }
      case "list": {
        process.stdout.write(`${formatTable(await allTokens(tokens))}\n`);
        return;
      }
      case "revoke": {
        const [target] = rest;
        if (!target) throw new UsageError("revoke needs a token id (tok_…) or name");
        const token = await resolveToken(tokens, target);
        const revoked = await tokens.revoke(token.id);
        await audit.append({ actor, tokenId: null, via: "CLI", action: "revokeApiToken", targets: [revoked.id], outcome: "OK", requestId: null });
        process.stdout.write(`revoked ${revoked.id} '${revoked.name}' at ${revoked.revokedAt!.toISOString()} (servers sharing this database refuse it within 2 s).\n`);
        return;
      }
    }
  } finally {
    await database.close();
  }
}

function parseExpiry(raw: string): Date {
  const relative = /^(\d{1,6})([dhm])$/.exec(raw.trim());
  if (relative) {
    const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[relative[2] as "d" | "h" | "m"];
    return new Date(Date.now() + Number(relative[1]) * unit);
  }
  const date = new Date(raw);
  if (Number.isNaN(date.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(raw.trim())) throw new UsageError(`--expires '${raw}' is neither a duration (30d, 12h, 90m) nor an ISO date`);
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
    if (!token) throw new UsageError(`no token has the id ${target}`);
    return token;
  }
  if (target.startsWith("pgt_")) throw new UsageError("that is a token's secret, not its id or name: run `npm run token -- list` for ids");
  const active = (await tokens.byName(target)).filter((token) => statusOf(token) === "ACTIVE");
  if (active.length === 1) return active[0];
  if (active.length === 0) throw new UsageError(`no active token is named '${target}'`);
  throw new UsageError(`${active.length} active tokens are named '${target}' (${active.map((token) => token.id).join(", ")}): revoke one by id`);
}

function formatTable(rows: ApiTokenRecord[]): string {
  const date = (value: Date | null) => (value ? value.toISOString().replace(/\.\d{3}Z$/, "Z") : "-");
  const table = [
    ["ID", "NAME", "SCOPES", "STATUS", "CREATED", "CREATED BY", "LAST USED", "EXPIRES"],
    ...rows.map((token) => [token.id, token.name, token.scopes.join(","), statusOf(token), date(token.createdAt), token.createdBy, date(token.lastUsedAt), date(token.expiresAt)]),
  ];
  const widths = table[0].map((_, column) => Math.max(...table.map((row) => row[column].length)));
  return table.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd()).join("\n");
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const expected = error instanceof UsageError || error instanceof DomainError || (error as Error)?.name === "ConfigError" || (error as { code?: string })?.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION";
  process.stderr.write(maskSecrets(`provgraph token: ${expected ? (error as Error).message : ((error as Error)?.stack ?? String(error))}\n`));
  if (error instanceof UsageError) process.stderr.write(`${USAGE}\n`);
  process.exitCode = 1;
});
