// A SQLite WAL file read as the pages it holds, for the tests that count what a write wrote.
import { existsSync, readFileSync, statSync } from "node:fs";
import { ledgerPath } from "../../src/ledger/db.ts";

/** The page numbers of the WAL's frames, in the order written (a frame each time a transaction writes a page). */
export function walPages(path: string): number[] {
  const wal = readFileSync(`${path}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const pages: number[] = [];
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) pages.push(wal.readUInt32BE(at));
  return pages;
}

/** The size of a data dir's WAL file, 0 when there is none. */
export const walBytes = (dataDir: string): number => {
  const wal = `${ledgerPath(dataDir)}-wal`;
  return existsSync(wal) ? statSync(wal).size : 0;
};
