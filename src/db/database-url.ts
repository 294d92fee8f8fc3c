import path from "node:path";

export type DatabaseProvider = "sqlite" | "postgres";

export function providerOf(databaseUrl: string): DatabaseProvider {
  return databaseUrl.startsWith("file:") ? "sqlite" : "postgres";
}

/** The SQLite file a `file:` URL names, resolved against the working directory. */
export function sqliteFilePath(databaseUrl: string): string {
  const withoutScheme = databaseUrl.slice("file:".length).replace(/\?.*$/, "");
  return path.resolve(withoutScheme);
}

/** The URL with any password replaced, safe to log. */
export function maskDatabaseUrl(databaseUrl: string): string {
  if (providerOf(databaseUrl) === "sqlite") return databaseUrl;
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = "****";
    return url.toString();
  } catch {
    return databaseUrl.replace(/:\/\/([^:@/]+):[^@/]*@/, "://$1:****@");
  }
}
