// Whether anything was committed to a SQLite ledger since a moment, at the cost of reading 48 bytes
// of memory: what lets the key lookup remember a key between requests and still see a revocation
// made by `ca-ledger keys revoke` in another process at the very next request
// (docs/performance.md#the-key-lookup).
//
// In WAL mode every connection of every process shares the WAL-index, the `-shm` file, mapped in
// memory. Its first 48 bytes are the WAL-index header (the documented WAL file format,
// https://www.sqlite.org/walformat.html): a writer rewrites it as the last step of every commit (its
// change counter, last valid frame and checksums move), a checkpoint that restarts the WAL rewrites
// it with new salts. So while those 48 bytes are what they were, nothing has been committed since.
//
// The mapping is read-only in use and never outlives the connection: SQLite truncates the `-shm`
// file only when a connection opens it while no other has it open, and this process's connection
// keeps it open until `close`, after which no mark is read again.

export interface CommitMarks {
  /** The header now. Take it before reading what it guards: a commit after it shows at the next check. */
  mark(): Uint32Array;
  /** True while no connection of any process has committed since `m` was taken. */
  unchanged(m: Uint32Array): boolean;
  /** No mark is read after this (the connection is closing). */
  close(): void;
}

const HEADER_WORDS = 12; // 48 bytes

/** Marks read from the `-shm` file of a WAL-mode database; null when it has none to map. */
export function walIndexMarks(shmPath: string): CommitMarks | null {
  let header: Uint32Array;
  try {
    const mapped = Bun.mmap(shmPath, { shared: true, size: HEADER_WORDS * 4 });
    if (mapped.byteLength < HEADER_WORDS * 4) return null;
    header = new Uint32Array(mapped.buffer, mapped.byteOffset, HEADER_WORDS);
  } catch {
    return null; // no -shm (not in WAL mode, or nothing read yet): nothing is remembered
  }
  let open = true;
  const none = new Uint32Array(0);
  return {
    mark: () => (open ? header.slice() : none),
    unchanged(m) {
      if (!open || m.length !== HEADER_WORDS) return false;
      for (let i = 0; i < HEADER_WORDS; i++) if (header[i] !== m[i]) return false;
      return true;
    },
    close() {
      open = false;
    },
  };
}

/**
 * Values read from the database, remembered by key while nothing at all is committed since each
 * was read; with no marks (PostgreSQL) every `get` reads. At most `max` are kept (all are dropped
 * when full: they are read again at the next commit anyway).
 */
export function whileUncommitted<V>(commits: () => CommitMarks | null, max: number) {
  const known = new Map<string, { value: V; mark: Uint32Array }>();
  return {
    /** The value remembered for `key`, or `read()`'s; `keep` says which values to remember. */
    async get(key: string, read: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<V> {
      const marks = commits();
      const seen = known.get(key);
      if (seen && marks?.unchanged(seen.mark)) return seen.value;
      const mark = marks?.mark(); // before the read: a commit after it shows at the next check
      const value = await read();
      if (mark && keep(value)) {
        if (known.size >= max) known.clear();
        known.set(key, { value, mark });
      } else known.delete(key);
      return value;
    },
  };
}
