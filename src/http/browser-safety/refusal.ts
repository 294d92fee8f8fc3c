/** The body of a request refused before GraphQL saw it: the GraphQL error shape, so clients read it the same way. */
export function refusalBody(code: string, message: string, extensions: Record<string, unknown> = {}): string {
  return JSON.stringify({ errors: [{ message, extensions: { code, ...extensions } }] });
}

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** A Host or Origin quoted in a message: only the characters such a value may hold, and not much of it. */
export function quotedHeader(value: string): string {
  const safe = value.replace(/[^A-Za-z0-9.:[\]/_-]/g, "?");
  return safe.length > 100 ? `${safe.slice(0, 100)}…` : safe;
}
