import { providerOf, sqliteFilePath } from "../../db/database-url";
import { BackupError, backupSqlite } from "../../db/sqlite-backup";
import { CliError, ExitCode } from "../exit-codes";
import { localConfig } from "../local-config";
import type { Output } from "../output";

export const PG_BACKUP_HINT = "on PostgreSQL, back up with pg_dump and restore with pg_restore (docs/operating/backups.md)";

/** `provgraph backup <file>`: an online backup of the SQLite database on DATABASE_URL, taken while the server runs. */
export async function backup(file: string, options: { quiet: boolean }, out: Output): Promise<number> {
  const { databaseUrl } = localConfig();
  if (providerOf(databaseUrl) !== "sqlite") throw new CliError(`provgraph backup copies the embedded SQLite database; ${PG_BACKUP_HINT}`, ExitCode.USAGE);
  const source = sqliteFilePath(databaseUrl);
  let progress: ReturnType<Output["progress"]> | undefined;
  let copiedSoFar = 0;
  try {
    const result = await backupSqlite(source, file, (copied, total) => {
      progress ??= options.quiet ? undefined : out.progress(total, "pages");
      progress?.advance(copied - copiedSoFar);
      copiedSoFar = copied;
    });
    progress?.stop();
    out.stdout(`backed up ${source} to ${result.file}: ${result.pages} pages, ${result.bytes} bytes (checked)`);
    return ExitCode.OK;
  } catch (error) {
    progress?.stop();
    if (error instanceof BackupError) throw new CliError(error.message, ExitCode.LOCAL);
    throw error;
  }
}
