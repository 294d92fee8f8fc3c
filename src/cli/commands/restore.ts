import fs from "node:fs";
import { providerOf, sqliteFilePath } from "../../db/database-url";
import { BackupError, installRestore, removeDatabaseFiles, stageRestore } from "../../db/sqlite-backup";
import { lockSqliteFile, SqliteFileInUseError } from "../../db/sqlite-owner-lock";
import { CliError, ExitCode } from "../exit-codes";
import { formatIntegrity } from "../integrity-format";
import { openLocalApp } from "../local-app";
import { localConfig } from "../local-config";
import type { Output } from "../output";
import { PG_BACKUP_HINT } from "./backup";

/**
 * `provgraph restore <file>`: makes a backup the SQLite database on DATABASE_URL, checked before any
 * server starts on it: SQLite's own check, then the migrations this version needs, then every invariant
 * of provgraph's data (the integrity report). A backup with a violation is refused (exit 1) and nothing
 * changes. The server must be stopped; a database already there is replaced only with --force, and kept
 * beside it as `<file>.before-restore-<time>`.
 */
export async function restore(file: string, options: { force: boolean }, out: Output): Promise<number> {
  const config = localConfig();
  if (providerOf(config.databaseUrl) !== "sqlite") throw new CliError(`provgraph restore replaces the embedded SQLite database; ${PG_BACKUP_HINT}`, ExitCode.USAGE);
  const target = sqliteFilePath(config.databaseUrl);
  if (fs.existsSync(target) && !options.force) throw new CliError(`${target} exists: stop the server, then restore with --force (the database there is kept as ${target}.before-restore-<time>)`, ExitCode.LOCAL);
  let release: () => void;
  try {
    // Held until the restored file is in place: no server may start on the target meanwhile.
    release = lockSqliteFile(target);
  } catch (error) {
    if (error instanceof SqliteFileInUseError) throw new CliError(`${error.message}: stop the server before restoring`, ExitCode.LOCAL);
    throw error;
  }
  let staged: string | undefined;
  let stagedName: string | undefined;
  try {
    try {
      staged = stagedName = stageRestore(file, target);
    } catch (error) {
      if (error instanceof BackupError) throw new CliError(error.message, ExitCode.BAD_FILE);
      throw error;
    }
    // The staged copy, opened as the server opens a database: migrated to this version, then checked.
    const app = await openLocalApp({ ...config, databaseUrl: `file:${staged}`, migrateOnStart: true });
    let report;
    try {
      report = await app.services.integrity.check({});
    } finally {
      await app.stop();
    }
    if (!report.ok) {
      out.stdout(formatIntegrity(report));
      out.stdout(`restore refused: ${file} breaks provgraph's invariants; ${target} is unchanged`);
      return ExitCode.FINDINGS;
    }
    const kept = installRestore(staged, target);
    staged = undefined;
    out.stdout(`restored ${file} to ${target}: 0 integrity violations${kept ? `; the database it replaced is kept as ${kept}` : ""}`);
    return ExitCode.OK;
  } finally {
    if (staged) removeDatabaseFiles(staged);
    // the staged copy's own lock sidecar, taken while it was checked
    if (stagedName) fs.rmSync(`${stagedName}.lock`, { force: true });
    release();
  }
}
