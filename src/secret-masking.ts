/**
 * The last line of defence for secrets in text we emit (log lines, error messages): API tokens
 * (pgt_…) and the password part of any URL (DATABASE_URL, REDIS_URL, …) are masked wherever they
 * appear. Code should not put them there in the first place; this catches what slips through.
 */
const TOKEN = /pgt_[A-Za-z0-9_-]{8,}/g;
/** scheme://user:password@ (the user may be empty: redis://:password@host). */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@"'<>]*):([^\s@/"'<>]+)@/gi;

export function maskSecrets(text: string): string {
  return text.replace(TOKEN, "pgt_****").replace(URL_PASSWORD, "$1:****@");
}
