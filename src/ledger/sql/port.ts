// The ledger's one door to its database, the same for SQLite and PostgreSQL. Every call is
// asynchronous because Bun's PostgreSQL client is; bun:sqlite answers at once, so on SQLite the
// promise is already settled when it is returned. SQL is written once, with SQLite's placeholders
// (`?`, `?1`) and in the subset both engines share; dialect.ts rewrites the few forms PostgreSQL
// spells differently and holds, side by side, what cannot be written once.

export type Dialect = "sqlite" | "postgres";

/** What a parameter may be: booleans are stored as 0/1 integers in both engines. */
export type SqlValue = string | number | bigint | null;

export interface RunResult {
  /** Rows the statement inserted, updated or deleted. */
  changes: number;
}

/** Queries on a connection or inside a transaction. */
export interface Sql {
  readonly dialect: Dialect;
  all<T = Record<string, unknown>>(text: string, ...params: SqlValue[]): Promise<T[]>;
  get<T = Record<string, unknown>>(text: string, ...params: SqlValue[]): Promise<T | null>;
  /** Rows as arrays of values, in the order of the select list (no objects built). */
  values<T extends unknown[] = unknown[]>(text: string, ...params: SqlValue[]): Promise<T[]>;
  run(text: string, ...params: SqlValue[]): Promise<RunResult>;
  /**
   * Rows one by one, for reads of a whole table (verify). SQLite steps its statement; PostgreSQL
   * reads the result whole first (Bun's client has no cursor).
   */
  iterate<T = Record<string, unknown>>(text: string, ...params: SqlValue[]): AsyncIterable<T>;
  /**
   * A write transaction, one writer at a time across every process: SQLite's BEGIN IMMEDIATE,
   * PostgreSQL's transaction-scoped advisory lock on the ledger. `work` runs its queries on `tx`,
   * never on the connection it came from. Inside a transaction it joins the one in progress.
   */
  write<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * A transaction that takes rows for this process with `FOR UPDATE SKIP LOCKED` (the queue's
   * claims; see dialect.ts `forUpdate`), without waiting for the ledger's writer: PostgreSQL locks
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
  close(): Promise<void>;
}
