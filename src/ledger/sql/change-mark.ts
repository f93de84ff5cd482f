// A SQLite ledger's change mark (docs/sql.md#the-change-mark): a file of 8 bytes beside the
// database, `ledger.db-mark`, rewritten with fresh random bytes after every commit made through the
// port, by every process that opens the ledger (the server's two threads, the CLI). A connection
// that holds a read snapshot reads the mark before it reuses the snapshot for another request:
// the same bytes mean nothing was committed through the port since the snapshot was pinned, so it
// is still the newest. Reading the mark is one `pread`; a new snapshot is SQLite's read lock, its
// checks and two `fcntl` calls, most of a cheap route's cost on the server
// (docs/performance.md#the-tenth-round-a-snapshot-kept-while-nothing-changes).
//
// Random bytes rather than a counter: two processes that commit at once each write their own,
// and whichever lands last still differs from what a reader remembered. The mark is our own file,
// never one SQLite locks, so opening and closing it cannot drop SQLite's POSIX locks (the trap of
// reading SQLite's `-shm` file, docs/performance.md#keys-and-registrations-remembered-between-requests-tried-left-out).
import { randomFillSync } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from "node:fs";

export interface ChangeMark {
  /** Reads the mark now: what `unchanged` compares with until the next `remember`. */
  remember(): void;
  /** Whether the mark holds what `remember` read (false when that read or this one failed). */
  unchanged(): boolean;
  /** Something was committed: rewrites the mark. Never throws (see below). */
  changed(): void;
  close(): void;
}

const SIZE = 8;

/** Where the mark of the database at `dbPath` is kept. */
export const changeMarkPath = (dbPath: string): string => `${dbPath}-mark`;

/** The mark beside the database at `dbPath`, or null where it cannot be opened (a snapshot is then never reused). */
export function openChangeMark(dbPath: string): ChangeMark | null {
  let fd: number;
  try {
    fd = openSync(changeMarkPath(dbPath), constants.O_RDWR | constants.O_CREAT, 0o600);
  } catch {
    return null;
  }
  const remembered = Buffer.alloc(SIZE);
  const now = Buffer.alloc(SIZE);
  const fresh = Buffer.alloc(SIZE);
  let known = false;
  const readInto = (into: Buffer): boolean => {
    try {
      return readSync(fd, into, 0, SIZE, 0) === SIZE;
    } catch {
      return false;
    }
  };
  const mark: ChangeMark = {
    remember() {
      known = readInto(remembered);
    },
    unchanged() {
      return known && readInto(now) && now.equals(remembered);
    },
    changed() {
      // The commit has happened; failing it now would report a write that stands as failed. A mark
      // left as it was lets a reader keep its snapshot until the end of its event-loop turn, when
      // the server lets every snapshot go (docs/sql.md#the-change-mark).
      try {
        randomFillSync(fresh);
        writeSync(fd, fresh, 0, SIZE, 0);
      } catch {}
    },
    close() {
      closeSync(fd);
    },
  };
  // A new file holds nothing a reader could remember: give it its first bytes.
  if (fstatSync(fd).size < SIZE) mark.changed();
  return mark;
}
