// What a database error means to the caller, for both engines: "busy" is a write that waited
// its turn too long (SQLite's busy timeout, PostgreSQL's lock timeout, a deadlock or a
// serialization failure the server broke); trying again later is the whole remedy.

/** PostgreSQL's SQLSTATE codes for a lock not granted, a deadlock and a serialization failure. */
const PG_BUSY = new Set(["55P03", "40P01", "40001"]);

export function isBusy(e: unknown): boolean {
  const errno = String((e as { errno?: unknown })?.errno ?? "");
  return PG_BUSY.has(errno) || /SQLITE_BUSY|database is locked/i.test(String((e as Error)?.message ?? e));
}

/** PostgreSQL's SQLSTATE for a disk full (class 53, insufficient resources). */
const PG_DISK_FULL = "53100";

/** The disk under the ledger is full: SQLite's SQLITE_FULL, PostgreSQL's disk_full, or the system's ENOSPC. */
export function isDiskFull(e: unknown): boolean {
  const code = String((e as { code?: unknown })?.code ?? "");
  const errno = String((e as { errno?: unknown })?.errno ?? "");
  return /^SQLITE_FULL/.test(code) || code === "ENOSPC" || errno === PG_DISK_FULL || /database or disk is full/i.test(String((e as Error)?.message ?? ""));
}
