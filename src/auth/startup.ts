import type { Logger } from "../logger";
import type { AuthServices } from "./auth-services";
import { AuthSetupError } from "./errors";

/** "refused": bound to a public address with no token, so no request could ever be authenticated; start() refuses to serve. */
export type AuthMode = "open" | "tokens" | "refused";

export const CREATE_TOKEN_HINT = "provgraph token create --scope admin --name admin";

/**
 * Decides the mode at start-up. PROVGRAPH_BOOTSTRAP_TOKEN first becomes an admin token (stored
 * hashed, never logged; a revoked one stays revoked). Then: bound to loopback with no token ever
 * created, open mode, said in one warn line; a public address with no token is "refused" (the app
 * does not serve: see authSetupError); anything else requires tokens.
 */
export async function prepareAuth(auth: AuthServices, settings: { host: string; loopback: boolean; bootstrapToken?: string }, logger: Logger): Promise<AuthMode> {
  if (settings.bootstrapToken) await ensureBootstrapToken(auth, settings.bootstrapToken, logger);
  const tokensExist = await auth.tokens.anyExists();
  if (tokensExist) auth.authenticator.noteTokenCreated();
  if (!tokensExist && !settings.loopback) return "refused";
  if (!tokensExist) {
    logger.warn(
      { host: settings.host, auth: "open" },
      `OPEN MODE: no API token exists, so every request to this loopback-only server acts as admin. Create a token to require tokens: ${CREATE_TOKEN_HINT}`,
    );
    return "open";
  }
  return "tokens";
}

/** Why a public bind with no token will not serve: one line saying how to make a token. */
export function authSetupError(host: string): AuthSetupError {
  return new AuthSetupError(
    `HOST ${host} is not a loopback address and no API token exists: create one with '${CREATE_TOKEN_HINT}' (same DATABASE_URL), or set PROVGRAPH_BOOTSTRAP_TOKEN`,
  );
}

const BOOTSTRAP = "PROVGRAPH_BOOTSTRAP_TOKEN";

async function ensureBootstrapToken(auth: AuthServices, secret: string, logger: Logger): Promise<void> {
  const existing = await auth.tokens.findBySecret(secret);
  if (existing) {
    if (existing.revokedAt) logger.warn({ tokenId: existing.id }, `${BOOTSTRAP} names a revoked token: it stays revoked`);
    return;
  }
  try {
    const { token } = await auth.tokens.createWithSecret(secret, { name: "bootstrap", scopes: ["admin"], createdBy: BOOTSTRAP });
    await auth.audit.append({ actor: BOOTSTRAP, tokenId: null, via: "STARTUP", action: "createApiToken", targets: [token.id], outcome: "OK", requestId: null });
    logger.info({ tokenId: token.id }, `created the admin token ${BOOTSTRAP} holds`);
  } catch (error) {
    // Several instances starting at once: one of them stored it.
    if (!(await auth.tokens.findBySecret(secret))) throw error;
  }
}
