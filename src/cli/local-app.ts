import type { App, buildApp as BuildApp } from "../app";
import type { Config } from "../config";
import { createLogger } from "../logger";
import { CliError, ExitCode } from "./exit-codes";

/**
 * The server's core on a database, without listening: what `npm start` builds (migrations applied,
 * the same services, the same invariants), for local commands that need more than the tables
 * (integrity --local, restore's check). Logs nothing; the caller stops it.
 */
export async function openLocalApp(config: Config): Promise<App> {
  const { buildApp } = require("../app") as { buildApp: typeof BuildApp };
  try {
    // Local commands never serve: loopback, so the token rules of a public HOST do not apply here.
    return await buildApp({ ...config, host: "127.0.0.1", redisUrl: null }, { logger: createLogger("silent") });
  } catch (error) {
    if (["DatabaseUnavailableError", "SqliteFileInUseError"].includes((error as Error).name)) throw new CliError((error as Error).message, ExitCode.LOCAL);
    throw error;
  }
}
