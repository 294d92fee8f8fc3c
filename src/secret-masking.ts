/**
 * The last line of defence for secrets in text we emit (log lines, error messages): API tokens
 * (pgt_…), the password part of any URL (DATABASE_URL, REDIS_URL, …) and the secrets registered
 * here (PROVGRAPH_ERASURE_SECRET) are masked wherever they appear. Code should not put them there in
 * the first place; this catches what slips through.
 */
const TOKEN = /pgt_[A-Za-z0-9_-]{8,}/g;
/** scheme://user:password@ (the user may be empty: redis://:password@host). */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@"'<>]*):([^\s@/"'<>]+)@/gi;
/** Secrets with no recognisable shape, masked as they are (and as JSON would escape them). */
const literals = new Set<string>();

export function maskSecrets(text: string): string {
  let masked = text.replace(TOKEN, "pgt_****").replace(URL_PASSWORD, "$1:****@");
  for (const secret of literals) if (masked.includes(secret)) masked = masked.split(secret).join("****");
  return masked;
}

/** Masks `secret` in every line emitted from now on (and its JSON-escaped form). */
export function registerSecretForMasking(secret: string): void {
  if (secret.length < 8) return;
  literals.add(secret);
  const escaped = JSON.stringify(secret).slice(1, -1);
  if (escaped !== secret) literals.add(escaped);
}
