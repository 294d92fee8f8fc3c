/** The API token a user pasted: kept in sessionStorage, so it lives as long as this tab and no longer. */
const KEY = "provgraph.explorer.token";
const listeners = new Set<() => void>();

export function currentToken(): string | undefined {
  try {
    return sessionStorage.getItem(KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function setToken(token: string | undefined): void {
  const value = token?.trim().replace(/^Bearer\s+/i, "");
  if (value) sessionStorage.setItem(KEY, value);
  else sessionStorage.removeItem(KEY);
  for (const listener of listeners) listener();
}

export function onTokenChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
