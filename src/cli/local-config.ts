import { type Config, ConfigError, loadConfig } from "../config";
import { CliError, ExitCode } from "./exit-codes";

/** The server's configuration (the same environment variables), for the commands that work on DATABASE_URL. */
export function localConfig(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message, ExitCode.USAGE);
    throw error;
  }
}
