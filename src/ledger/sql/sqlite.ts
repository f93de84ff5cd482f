// The port (port.ts) over bun:sqlite. Each statement (statement.ts) is prepared once per
// connection, from its SQLite text, and kept; every query runs synchronously inside an
// already-settled promise.
//
// One connection serves many tasks at once (the worker's sync jobs and its booker), and a
// transaction's work is an async function: between its awaits another task could run a statement
// that would land inside the open transaction. So a transaction holds the connection: the
// connection's own queries wait for it to end, and only its `tx` runs meanwhile. Without a
// transaction in progress a query runs at once, with no waiting and no lock.
//
// A pinned read (pinReads) is the one exception: a read transaction that holds the connection
// but lets the connection's own reads join it (an HTTP request answered from the ledger alone
// runs to its answer without yielding to another task, so its reads are the only ones). Whoever
// needs the connection for anything else ends it first instead of waiting: it never blocks
// anyone, and reads that come after it run as they would without it. A pin asked for again while
// nothing was committed through the port since (the change mark, change-mark.ts) keeps its snapshot,
// which is still the newest; every commit made here rewrites the mark.
import type { Database, Statement } from "bun:sqlite";
import type { ChangeMark } from "./change-mark.ts";
import { isBusy } from "./errors.ts";
import type { Db, KeyClaim, RunResult, Sql, SqlValue } from "./port.ts";
import { bind, textFor, type Query } from "./statement.ts";

/** How long a write waits for another connection's write transaction before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

// Enough for every statement the ledger defines; only tests build statements as they go.
const MAX_STATEMENTS = 2000;

/** What `PRAGMA wal_checkpoint` answers: whether it gave up, frames in the WAL, frames copied into the database. */
interface Checkpoint {
  busy: number;
  log: number;
  checkpointed: number;
}

export interface SqliteDb extends Db {
  readonly sqlite: Database;
}

/** `mark`: the ledger's change mark; without one (a scratch copy) a pin is never kept for another. */
export function sqliteDb(sqlite: Database, mark: ChangeMark | null = null): SqliteDb {
  const statements = new Map<Query, Statement>();
  const prepare = (q: Query): Statement => {
    let s = statements.get(q);
    if (!s) {
      if (statements.size >= MAX_STATEMENTS) clearStatements(statements);
      s = sqlite.prepare(textFor(q, "sqlite"));
      statements.set(q, s);
    }
    return s;
  };

  // The connection's holder: a transaction (or a skippable write) in progress, and who waits.
  // `pinned`: the holder is a pinned read, which whoever asks for the connection ends and takes
  // over (so nobody ever waits behind it).
  let held = false;
  let pinned = false;
  const waiting: (() => void)[] = [];
  const acquire = async (): Promise<void> => {
    if (pinned) {
      takeOverPin();
      return;
    }
    if (!held) {
      held = true;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else held = false;
  };
  /**
   * Runs a statement that may write now, or once the transaction holding the connection has ended;
   * never inside a pinned read, which it ends first (the pin's ROLLBACK would undo the write).
   */
  const whenFreeToWrite = <A, B, T>(step: (a: A, b: B) => T, a: A, b: B): Promise<T> => {
    try {
      unpin();
    } catch (e) {
      return Promise.reject(e);
    }
    return mark ? whenFree(step, a, b).then(committed) : whenFree(step, a, b);
  };
  /** After a commit (a transaction's, or a write outside one): the change mark tells the other connections. */
  const committed = <T>(value: T): T => {
    mark?.changed();
    return value;
  };
  /**
   * Runs `step(a, b)` now (inside a pinned read, if any), or once the transaction holding the
   * connection has ended. Not an async function, and given its arguments rather than a closure:
   * on a cheap route the free path is taken a few times a request, and an async function's frame
   * and a closure for each statement were a measurable part of its cost
   * (docs/performance.md#the-portfolio-in-one-statement).
   */
  const whenFree = <A, B, T>(step: (a: A, b: B) => T, a: A, b: B): Promise<T> => {
    if (held && !pinned) return afterHolder(step, a, b);
    try {
      return Promise.resolve(step(a, b));
    } catch (e) {
      return Promise.reject(e);
    }
  };
  const afterHolder = async <A, B, T>(step: (a: A, b: B) => T, a: A, b: B): Promise<T> => {
    await acquire();
    try {
      return step(a, b);
    } finally {
      release();
    }
  };
  // Each statement's step, made once (whenFree above).
  const allRows = (q: Query, params: unknown) => prepare(q).all(...bind(q.sqlite, params)) as never[];
  const oneRow = (q: Query, params: unknown) => (prepare(q).get(...bind(q.sqlite, params)) ?? null) as never;
  const valueRows = (q: Query, params: unknown) => prepare(q).values(...bind(q.sqlite, params)) as never[];
  const runStatement = (q: Query, params: unknown) => runResult(prepare(q).run(...bind(q.sqlite, params)));
  const execScript = (script: string) => void sqlite.exec(script);

  /** `step` with SQLite's busy timeout at 0: a lock held by another connection fails it at once instead of being waited for. */
  const withoutWaiting = async <T>(step: () => T | Promise<T>): Promise<T> => {
    sqlite.exec("PRAGMA busy_timeout = 0");
    try {
      return await step();
    } finally {
      sqlite.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  };

  // BEGIN, COMMIT and ROLLBACK prepared once: a read transaction is on the path of cheap routes (queries/actions.ts).
  const control = new Map<string, Statement>();
  const runControl = (text: string) => {
    let s = control.get(text);
    if (!s) control.set(text, (s = sqlite.prepare(text)));
    s.run();
  };
  /** Ends the pinned read. */
  const endPin = (): void => {
    pinned = false;
    if (sqlite.inTransaction) runControl("ROLLBACK");
  };
  /**
   * Ends the pinned read and keeps the connection, now for whoever ended it; should its ROLLBACK
   * fail, the connection is let go first, so that nothing is left waiting on a pin that is over.
   */
  const takeOverPin = (): void => {
    try {
      endPin();
    } catch (e) {
      release();
      throw e;
    }
  };
  /** Ends the pinned read, if any, and lets the connection go. */
  const unpin = (): void => {
    if (!pinned) return;
    try {
      endPin();
    } finally {
      release();
    }
  };
  const inTransaction = async <T>(begin: string, end: string, work: (tx: Sql) => Promise<T>): Promise<T> => {
    await acquire();
    try {
      runControl(begin);
      try {
        const result = await work(tx);
        runControl(end);
        return end === "COMMIT" ? committed(result) : result;
      } catch (e) {
        if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
        throw e;
      }
    } finally {
      release();
    }
  };
  const tx: Sql = {
    ...queries(prepare),
    write: (work) => work(tx),
    claim: (work) => work(tx),
    read: (work) => work(tx),
    claimKeys: grantKeys,
  };

  const db: SqliteDb = {
    sqlite,
    dialect: "sqlite",
    all: (q, params?) => whenFree(allRows, q, params),
    get: (q, params?) => whenFree(oneRow, q, params),
    values: (q, params?) => whenFree(valueRows, q, params),
    run: (q, params?) => whenFreeToWrite(runStatement, q, params),
    iterate: (q, params?) => holding(acquire, release, prepare(q), bind(q.sqlite, params)),
    write: (work) => inTransaction("BEGIN IMMEDIATE", "COMMIT", work),
    claim: (work) => inTransaction("BEGIN IMMEDIATE", "COMMIT", work),
    // Deferred: the first read pins the WAL snapshot; nothing was written, so it ends in ROLLBACK.
    // Inside a pinned read, `work` reads through the connection itself, which joins the pinned
    // read while it lasts and waits like any query once something else has ended it.
    read: (work) => (pinned ? work(db) : inTransaction("BEGIN", "ROLLBACK", work)),
    exec: (script) => whenFreeToWrite(execScript, script, undefined),
    async writeIfFree(work) {
      await acquire();
      try {
        await withoutWaiting(() => work(tx));
        return true;
      } catch (e) {
        if (isBusy(e)) return false;
        throw e;
      } finally {
        // Its statements commit one by one: any of them may have, even when a later one failed.
        mark?.changed();
        release();
      }
    },
    // In two steps, so that no one waits on it for more than an instant. PASSIVE copies every frame
    // it can into the database without taking the writer's lock or waiting for a reader (the long
    // part: a re-booking's WAL is megabytes); only when it copied them all, TRUNCATE, with no busy
    // wait, takes the writer's lock to empty the file, which costs a sync and a truncate. Were
    // another connection writing or reading an older snapshot, either step gives up at once rather
    // than hold the writer's lock while it waits (TRUNCATE with the busy timeout would hold it for
    // up to 5 s, stalling every write of the HTTP thread); the caller tries again later.
    async emptyLog() {
      await acquire(); // after this connection's transaction in progress, if any
      try {
        const passive = sqlite.query("PRAGMA wal_checkpoint(PASSIVE)").get() as Checkpoint;
        if (passive.busy !== 0 || passive.checkpointed < passive.log) return false;
        return (await withoutWaiting(() => sqlite.query("PRAGMA wal_checkpoint(TRUNCATE)").get() as Checkpoint)).busy === 0;
      } finally {
        release();
      }
    },
    // One server per data dir: nobody else books this ledger.
    claimKeys: grantKeys,
    pinReads() {
      // A pin of before is kept while nothing was committed through the port since it was taken:
      // its snapshot is what a new one would read. Otherwise it ends, and the new one reads what
      // is committed now. A transaction in progress keeps the connection: its reads are its own.
      if (pinned && mark?.unchanged()) return;
      if (pinned) takeOverPin();
      else if (held) return;
      else held = true;
      // Read before the snapshot opens (at the first statement after BEGIN): a commit after this
      // read changes the mark, so the next pin will not keep a snapshot that misses it.
      mark?.remember();
      try {
        runControl("BEGIN");
      } catch (e) {
        release();
        throw e;
      }
      pinned = true;
    },
    unpinReads: unpin,
    async close() {
      if (pinned) endPin();
      clearStatements(statements);
      clearStatements(control);
      sqlite.close();
      mark?.close();
    },
  };
  return db;
}

/** Every key asked for, up to `max`: no other process books this ledger. */
export const grantKeys = async (_scope: string, keys: string[], max: number): Promise<KeyClaim> => ({ keys: keys.slice(0, max), release: async () => {} });

/** The queries of a transaction's `tx`: it holds the connection, so they run at once. */
function queries(prepare: (q: Query) => Statement): Omit<Sql, "write" | "claim" | "read" | "claimKeys"> {
  return {
    dialect: "sqlite",
    all: async (q, params?) => prepare(q).all(...bind(q.sqlite, params)) as never[],
    get: async (q, params?) => (prepare(q).get(...bind(q.sqlite, params)) ?? null) as never,
    values: async (q, params?) => prepare(q).values(...bind(q.sqlite, params)) as never[],
    run: async (q, params?) => runResult(prepare(q).run(...bind(q.sqlite, params))),
    async *iterate(q, params?) {
      yield* prepare(q).iterate(...bind(q.sqlite, params)) as Iterable<never>;
    },
  };
}

async function* holding<T>(acquire: () => Promise<void>, release: () => void, statement: Statement, params: SqlValue[]): AsyncIterable<T> {
  // A statement stepped across awaits must not see another task's transaction begin and end on
  // its connection: the iteration holds the connection, like a read transaction.
  await acquire();
  try {
    yield* statement.iterate(...params) as Iterable<T>;
  } finally {
    release();
  }
}

const runResult = (r: { changes: number }): RunResult => ({ changes: r.changes });

function clearStatements(statements: Map<unknown, Statement>): void {
  for (const s of statements.values()) s.finalize();
  statements.clear();
}
