// One server per data dir. A server holds an exclusive SQLite lock (an OS file lock) on
// `serve.lock` beside the ledger for as long as it runs; the kernel drops it when the process
// ends, however it ends, so a killed server leaves nothing stale behind. ledger.db itself is not
// locked: keys, sync, backup, verify and migrate keep working while a server runs.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { lockExclusively } from "./backup.ts";
import { makePrivate, prepareDataDir } from "./db.ts";

export class DataDirHeld extends Error {}

export interface DataDirLock {
  release(): void;
}

/** Takes the data dir for this process; throws DataDirHeld when another server has it. */
export function holdDataDir(dataDir: string): DataDirLock {
  prepareDataDir(dataDir);
  const path = join(dataDir, "serve.lock");
  makePrivate(path);
  const db = lockExclusively(path);
  if (!db) throw new DataDirHeld(`data dir ${dataDir} is held by another ca-ledger server`);
  return { release: () => db.close() };
}

/**
 * Whether a running server holds the data dir now. A probe: the lock is taken and let go at once
 * when free, and nothing is created in a data dir that has no `serve.lock`.
 */
export function dataDirHeld(dataDir: string): boolean {
  const path = join(dataDir, "serve.lock");
  if (!existsSync(path)) return false;
  const db = lockExclusively(path);
  db?.close();
  return db === null;
}
