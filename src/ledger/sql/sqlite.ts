// The port (port.ts) over bun:sqlite. Statements are prepared once per SQL text and kept (bun's
// own query cache holds 20), and every query runs synchronously inside an already-settled promise.
//
// One connection serves many tasks at once (the worker's sync jobs and its booker), and a
// transaction's work is an async function: between its awaits another task could run a statement
// that would land inside the open transaction. So a transaction holds the connection: the
// connection's own queries wait for it to end, and only its `tx` runs meanwhile. Without a
// transaction in progress a query runs at once, with no waiting and no lock.
import type { Database, Statement } from "bun:sqlite";
import { isBusy } from "./errors.ts";
import type { Db, KeyClaim, RunResult, Sql, SqlValue } from "./port.ts";

/** How long a write waits for another connection's write transaction before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

// Enough for every query the ledger writes; statements built per table or per list stay few.
const MAX_STATEMENTS = 2000;

export interface SqliteDb extends Db {
  readonly sqlite: Database;
}

export function sqliteDb(sqlite: Database): SqliteDb {
  const statements = new Map<string, Statement>();
  const prepare = (text: string): Statement => {
    let s = statements.get(text);
    if (!s) {
      if (statements.size >= MAX_STATEMENTS) clearStatements(statements);
      s = sqlite.prepare(text);
      statements.set(text, s);
    }
    return s;
  };

  // The connection's holder: a transaction (or a skippable write) in progress, and who waits.
  let held = false;
  const waiting: (() => void)[] = [];
  const acquire = async (): Promise<void> => {
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
  /** Runs `step` now, or once the transaction holding the connection has ended. */
  const whenFree = async <T>(step: () => T): Promise<T> => {
    if (!held) return step();
    await acquire();
    try {
      return step();
    } finally {
      release();
    }
  };

  const inTransaction = async <T>(begin: string, end: string, work: (tx: Sql) => Promise<T>): Promise<T> => {
    await acquire();
    try {
      sqlite.exec(begin);
      try {
        const result = await work(tx);
        sqlite.exec(end);
        return result;
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
    all: (text, ...params) => whenFree(() => prepare(text).all(...params) as never[]),
    get: (text, ...params) => whenFree(() => (prepare(text).get(...params) ?? null) as never),
    values: (text, ...params) => whenFree(() => prepare(text).values(...params) as never[]),
    run: (text, ...params) => whenFree(() => runResult(prepare(text).run(...params))),
    iterate: (text, ...params) => holding(acquire, release, prepare(text), params),
    write: (work) => inTransaction("BEGIN IMMEDIATE", "COMMIT", work),
    claim: (work) => inTransaction("BEGIN IMMEDIATE", "COMMIT", work),
    // Deferred: the first read pins the WAL snapshot; nothing was written, so it ends in ROLLBACK.
    read: (work) => inTransaction("BEGIN", "ROLLBACK", work),
    exec: (script) => whenFree(() => void sqlite.exec(script)),
    async writeIfFree(work) {
      await acquire();
      sqlite.exec("PRAGMA busy_timeout = 0");
      try {
        await work(tx);
        return true;
      } catch (e) {
        if (isBusy(e)) return false;
        throw e;
      } finally {
        sqlite.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
        release();
      }
    },
    // One server per data dir: nobody else books this ledger.
    claimKeys: grantKeys,
    async close() {
      clearStatements(statements);
      sqlite.close();
    },
  };
  return db;
}

/** Every key asked for, up to `max`: no other process books this ledger. */
export const grantKeys = async (_scope: string, keys: string[], max: number): Promise<KeyClaim> => ({ keys: keys.slice(0, max), release: async () => {} });

/** The queries of a transaction's `tx`: it holds the connection, so they run at once. */
function queries(prepare: (text: string) => Statement): Omit<Sql, "write" | "claim" | "read" | "claimKeys"> {
  return {
    dialect: "sqlite",
    all: async (text, ...params) => prepare(text).all(...params) as never[],
    get: async (text, ...params) => (prepare(text).get(...params) ?? null) as never,
    values: async (text, ...params) => prepare(text).values(...params) as never[],
    run: async (text, ...params) => runResult(prepare(text).run(...params)),
    async *iterate(text, ...params) {
      yield* prepare(text).iterate(...params) as Iterable<never>;
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

function clearStatements(statements: Map<string, Statement>): void {
  for (const s of statements.values()) s.finalize();
  statements.clear();
}
