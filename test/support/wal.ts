// A SQLite WAL file read as the pages it holds, for the tests that count what a write wrote.
import { readFileSync } from "node:fs";

/** The page numbers of the WAL's frames, in the order written (a frame each time a transaction writes a page). */
export function walPages(path: string): number[] {
  const wal = readFileSync(`${path}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const pages: number[] = [];
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) pages.push(wal.readUInt32BE(at));
  return pages;
}
