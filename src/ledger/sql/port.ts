// The ledger's one door to its database, the same for SQLite and PostgreSQL. Every call is
// asynchronous because Bun's PostgreSQL client is; bun:sqlite answers at once, so on SQLite the
// promise is already settled when it is returned. A query runs a statement defined once
// (statement.ts: rendered for each engine when its module loads) with an object of its
// parameters' values.
import type { Dialect, Query } from "./statement.ts";

// The engines and what a bound value may be are the statements' (statement.ts), said once there.
export type { Dialect, SqlValue } from "./statement.ts";

/** A statement's parameters: none may be left out (an object is optional when it has none). */
export type Args<P> = Record<never, never> extends P ? [params?: P] : [params: P];

export interface RunResult {
  /** Rows the statement inserted, updated or deleted. */
  changes: number;
}

/** Queries on a connection or inside a transaction. */
export interface Sql {
  readonly dialect: Dialect;
  all<P, R>(q: Query<P, R>, ...params: Args<P>): Promise<R[]>;
  get<P, R>(q: Query<P, R>, ...params: Args<P>): Promise<R | null>;
  /** Rows as arrays of values, in the order of the select list (no objects built): `R` is the tuple. */
  values<P, R extends unknown[]>(q: Query<P, R>, ...params: Args<P>): Promise<R[]>;
  run<P>(q: Query<P, unknown>, ...params: Args<P>): Promise<RunResult>;
  /**
   * Rows one by one, for reads of a whole table (verify). SQLite steps its statement; PostgreSQL
   * reads the result whole first (Bun's client has no cursor).
   */
  iterate<P, R>(q: Query<P, R>, ...params: Args<P>): AsyncIterable<R>;
  /**
   * A write transaction, one writer at a time across every process: SQLite's BEGIN IMMEDIATE,
   * PostgreSQL's transaction-scoped advisory lock on the ledger. `work` runs its queries on `tx`,
   * never on the connection it came from. Inside a transaction it joins the one in progress.
   */
  write<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * A transaction that takes rows for this process with `FOR UPDATE SKIP LOCKED` (the queue's
   * claims; see statement.ts `forUpdate`), without waiting for the ledger's writer: PostgreSQL locks
   * only the rows, SQLite (one server per data dir) takes its write lock as `write` does.
   */
  claim<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  /** A read transaction: every query of `work` sees one snapshot. */
  read<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * Takes the first `max` of `keys` (in order) that no other process holds, under `scope`: several
   * servers sharing one database book different dirty wallets. PostgreSQL holds a session advisory
   * lock per key on a connection of its own, released with the claim or when the process dies;
   * SQLite has one server per data dir and grants the first `max`, as does a transaction (it
   * already holds the ledger's write lock).
   */
  claimKeys(scope: string, keys: string[], max: number): Promise<KeyClaim>;
}

/** Keys this process holds until it releases them or its connection ends (see Db.claimKeys). */
export interface KeyClaim {
  keys: string[];
  release(): Promise<void>;
}

/** An open ledger database. */
export interface Db extends Sql {
  /** A script of several statements without parameters (migrations, DDL). */
  exec(script: string): Promise<void>;
  /**
   * A write the caller may skip rather than wait for the writer (bookkeeping on the HTTP thread:
   * a key's last-used minute, a session's last-seen time). False when it was skipped.
   */
  writeIfFree(work: (tx: Sql) => Promise<unknown>): Promise<boolean>;
  /**
   * Empties the engine's write-ahead log, never waiting for another reader or writer: SQLite copies
   * its WAL into the ledger and truncates the file to 0 bytes, or does nothing while another
   * connection still reads or writes it (false: try again later). PostgreSQL manages its own log:
   * nothing to do (true). docs/storage.md#the-wal
   */
  emptyLog(): Promise<boolean>;
  /**
   * Pins one read snapshot for the work that follows at once, until `unpinReads` (a request
   * answered from the ledger alone: its key, its registration and its rows; docs/sql.md#pinned-reads).
   * On SQLite it is a read transaction the connection's own reads join: one shared lock for all of
   * them where each statement or `read` outside it would take and drop its own. It never blocks
   * anyone: a write (`run` and `exec` too, whose writes its ROLLBACK would undo), a claim, an
   * iteration or another transaction asked for meanwhile ends it first, and the reads after that
   * run as they would without it. A pin asked for while one is
   * pinned ends it and takes a snapshot of now, unless nothing was committed through the port
   * since (the ledger's change mark, change-mark.ts): that snapshot is still now, and is kept. While
   * the connection is in another transaction, nothing happens. On PostgreSQL, nothing (reads run
   * as they are).
   */
  pinReads(): void;
  /** Ends the pinned snapshot, if one is still pinned. */
  unpinReads(): void;
  close(): Promise<void>;
}

/**
 * Several reads that answer one request, on SQLite in one read transaction: outside one, each
 * statement takes, drops and checks the file's shared lock (system calls that are most of a cheap
 * route's time); inside, the lock is taken once. On PostgreSQL they run as they are (a
 * transaction would add two round trips), and inside a transaction they join it. `work` must read
 * only through `on`: on SQLite the connection is its own until it ends.
 */
export function readTogether<T>(db: Sql, work: (on: Sql) => Promise<T>): Promise<T> {
  return db.dialect === "sqlite" ? db.read(work) : work(db);
}
