import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";

/**
 * Online backups of the embedded SQLite database (docs/operating/backups.md). A backup is SQLite's
 * own backup API (better-sqlite3's `backup()`): it copies the database page by page on a connection of
 * its own while the server keeps reading and writing, and the copy is the database as of one commit.
 * It is written beside its target and renamed into place once whole and checked, so a target never
 * holds half a backup.
 */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BackupError";
  }
}

export interface BackupResult {
  file: string;
  bytes: number;
  pages: number;
}

/** The sidecar files SQLite keeps beside a database in WAL mode. */
const SIDECARS = ["-wal", "-shm", "-journal"];

export async function backupSqlite(source: string, target: string, onProgress?: (copied: number, total: number) => void): Promise<BackupResult> {
  if (!fs.existsSync(source)) throw new BackupError(`no SQLite database at ${source}`);
  if (fs.existsSync(target)) throw new BackupError(`${target} exists: a backup never overwrites a file (remove it, or choose another name)`);
  const partial = `${target}.partial-${process.pid}`;
  const db = new BetterSqlite3(source, { readonly: true, fileMustExist: true });
  let pages = 0;
  try {
    await db.backup(partial, {
      progress: ({ totalPages, remainingPages }) => {
        pages = totalPages;
        onProgress?.(totalPages - remainingPages, totalPages);
        // pages per step: big enough to be quick, small enough that the writer is never kept waiting long
        return 1_000;
      },
    });
    checkSqliteFile(partial);
    fs.renameSync(partial, target);
  } catch (error) {
    removeDatabaseFiles(partial);
    throw error instanceof BackupError ? error : new BackupError(`cannot back up ${source} to ${target}: ${(error as Error).message}`);
  } finally {
    db.close();
  }
  return { file: target, bytes: fs.statSync(target).size, pages };
}

/** SQLite's own check of a database file (`PRAGMA integrity_check`): pages, indexes, constraints. */
export function checkSqliteFile(file: string): void {
  const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    const problems = (db.pragma("integrity_check") as { integrity_check: string }[]).map((row) => row.integrity_check).filter((line) => line !== "ok");
    if (problems.length) throw new BackupError(`${file} is damaged: ${problems.slice(0, 5).join("; ")}`);
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${file} is not a SQLite database: ${(error as Error).message}`);
  } finally {
    db.close();
  }
}

/** Copies a backup to a working file beside `target` (the same file system, so it can be renamed into place). */
export function stageRestore(backup: string, target: string): string {
  if (!fs.existsSync(backup)) throw new BackupError(`no such file: ${backup}`);
  checkSqliteFile(backup);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const staged = `${target}.restoring-${process.pid}`;
  removeDatabaseFiles(staged);
  fs.copyFileSync(backup, staged);
  return staged;
}

/**
 * Puts a checked, staged copy in place of `target`: its WAL folded in first, the database it replaces
 * (if any) kept beside it as `<target>.before-restore-<time>`. Returns that name, or null.
 */
export function installRestore(staged: string, target: string, now = new Date()): string | null {
  const db = new BetterSqlite3(staged, { fileMustExist: true });
  try {
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  let kept: string | null = null;
  if (fs.existsSync(target)) {
    kept = `${target}.before-restore-${now.toISOString().replace(/[:.]/g, "-")}`;
    for (const suffix of ["", ...SIDECARS]) if (fs.existsSync(target + suffix)) fs.renameSync(target + suffix, kept + suffix);
  }
  fs.renameSync(staged, target);
  removeDatabaseFiles(staged);
  return kept;
}

/** A database file and its sidecars, gone. */
export function removeDatabaseFiles(file: string): void {
  for (const suffix of ["", ...SIDECARS]) fs.rmSync(file + suffix, { force: true });
}
