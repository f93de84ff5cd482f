// The port (port.ts) over Bun's own PostgreSQL client (`new SQL(url)`): a pool of connections,
// each statement sent as its PostgreSQL text (statement.ts) with its parameters, int8 values read
// back as numbers (every one the ledger stores is far below 2^53).
//
// Transactions: `write` takes one transaction-scoped advisory lock on the ledger, so writers
// across every server run one at a time, as SQLite's BEGIN IMMEDIATE makes them; everything the
// ledger's invariants rely on (the journal's chained seals, a tenant's wallet quota, the store's
// read-then-write of prior revisions) holds as it does on SQLite. `claim` locks only the rows it
// selects (`FOR UPDATE SKIP LOCKED`), so the queue's claims from several servers never wait for
// a booking's write. `read` is one REPEATABLE READ snapshot.
import { SQL, type ReservedSQL, type TransactionSQL } from "bun";
import { isBusy } from "./errors.ts";
import type { Db, KeyClaim, RunResult, Sql, SqlValue } from "./port.ts";
import { bind, textFor, type Query } from "./statement.ts";

/** The advisory lock every write transaction holds: one writer at a time, across servers. */
export const LEDGER_WRITE_LOCK = 0x6361_6c01; // "cal" + 1
/** How long a skippable write waits for a row another transaction holds before giving up. */
const SKIPPABLE_WAIT = "100ms";

type Client = SQL | TransactionSQL;

export interface PostgresDb extends Db {
  readonly client: SQL;
}

export interface PostgresOptions {
  /** Connections in the pool (default 10). */
  max?: number;
}

const queriesOn = (c: Client): Omit<Sql, "write" | "claim" | "read" | "claimKeys"> => ({
  dialect: "postgres",
  all: async (q, params?) => numbers(await c.unsafe(...pgQuery(q, params))) as never[],
  get: async (q, params?) => (numbers(await c.unsafe(...pgQuery(q, params)))[0] ?? null) as never,
  values: async (q, params?) => (await c.unsafe(...pgQuery(q, params)).values()).map(valueNumbers) as never[],
  run: async (q, params?) => runResult(await c.unsafe(...pgQuery(q, params))),
  async *iterate(q, params?) {
    yield* numbers(await c.unsafe(...pgQuery(q, params))) as never[];
  },
});

/** The port's queries inside a transaction of Bun's client (ours, or the migrations'). */
export function transactionSql(c: TransactionSQL): Sql {
  const tx: Sql = {
    ...queriesOn(c),
    write: (work) => work(tx),
    claim: (work) => work(tx),
    read: (work) => work(tx),
    claimKeys: async (_scope, keys, max) => ({ keys: keys.slice(0, max), release: async () => {} }),
  };
  return tx;
}

export function postgresDb(url: string, opts: PostgresOptions = {}): PostgresDb {
  const client = new SQL({ url, bigint: true, max: opts.max ?? 10 });
  const inTransaction = transactionSql;
  const claims = keyClaims(client);
  const db: PostgresDb = {
    client,
    ...queriesOn(client),
    write: (work) =>
      client.begin(async (c) => {
        await c.unsafe(`SELECT pg_advisory_xact_lock(${LEDGER_WRITE_LOCK})`);
        return work(inTransaction(c));
      }) as never,
    claim: (work) => client.begin((c) => work(inTransaction(c))) as never,
    read: (work) => client.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", (c) => work(inTransaction(c))) as never,
    exec: async (script) => void (await client.unsafe(script).simple()),
    async writeIfFree(work) {
      try {
        await client.begin(async (c) => {
          await c.unsafe(`SET LOCAL lock_timeout = '${SKIPPABLE_WAIT}'`);
          await work(inTransaction(c));
        });
        return true;
      } catch (e) {
        if (isBusy(e)) return false;
        throw e;
      }
    },
    emptyLog: async () => true,
    claimKeys: claims.claim,
    // Each query is a round trip of its own whatever a snapshot would share (docs/sql.md#pinned-reads).
    pinReads() {},
    unpinReads() {},
    async close() {
      await claims.close();
      await client.close({ timeout: 5 });
    },
  };
  return db;
}

/**
 * Claims of dirty wallets and mints: a session advisory lock per key, on one connection this
 * process keeps for them. A row lock would last only as long as a transaction, and a transaction
 * held open across the engine's run would make every store that bumps a claimed mark wait for
 * it, while holding the ledger's write lock: advisory locks let the store write and end with the
 * connection, so a killed server's claims are free at once.
 */
function keyClaims(client: SQL) {
  let reserved: Promise<ReservedSQL> | null = null;
  const connection = () => (reserved ??= client.reserve());
  const list = "jsonb_array_elements_text(CAST(CAST($2 AS text) AS jsonb)) WITH ORDINALITY AS k(value, i)";
  const locked = async <T>(step: (c: ReservedSQL) => Promise<T>): Promise<T> => {
    try {
      return await step(await connection());
    } catch (e) {
      // The next claim starts on a fresh connection. This one is closed, never handed back to the
      // pool: were it still alive, its session's locks would stay held by a pooled connection
      // nobody claims through, and those keys could not be booked until it closed.
      const old = reserved;
      reserved = null;
      void old?.then((c) => c.close()).catch(() => {});
      throw e;
    }
  };
  const unlock = (c: ReservedSQL, scope: string, keys: string[]) =>
    keys.length ? c.unsafe(`SELECT count(pg_advisory_unlock(hashtext($1), hashtext(value))) FROM ${list}`, [scope, JSON.stringify(keys)]) : null;
  return {
    claim: (scope: string, keys: string[], max: number): Promise<KeyClaim> =>
      locked(async (c) => {
        // Every key is tried once (no LIMIT, so no lock is taken on a row the query then drops).
        const rows = await c.unsafe(`SELECT value FROM ${list} WHERE pg_try_advisory_lock(hashtext($1), hashtext(value)) ORDER BY i`, [scope, JSON.stringify(keys)]);
        const got = (rows as { value: string }[]).map((r) => r.value);
        await unlock(c, scope, got.slice(max));
        const mine = got.slice(0, max);
        return { keys: mine, release: () => locked(async (again) => void (await unlock(again, scope, mine))) };
      }),
    async close() {
      const c = reserved;
      reserved = null;
      await c?.then((r) => r.close()).catch(() => {}); // its locks end with it
    },
  };
}

/** A statement's PostgreSQL text and values. */
const pgQuery = (q: Query, params: unknown): [string, SqlValue[]] => [q.postgres.text || textFor(q, "postgres"), bind(q.postgres, params)];

/** int8 columns arrive as BigInt (the client's `bigint` mode): the ledger's are all safe numbers. */
function numbers(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  for (const row of rows) {
    for (const key in row) {
      const v = row[key];
      if (typeof v === "bigint") row[key] = toNumber(v);
    }
  }
  return rows;
}

const valueNumbers = (row: unknown[]): unknown[] => row.map((v) => (typeof v === "bigint" ? toNumber(v) : v));

function toNumber(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) throw new RangeError(`integer ${v} is beyond a JavaScript number`);
  return Number(v);
}

const runResult = (r: { affectedRows?: number | null; count?: number | null }): RunResult => ({ changes: r.affectedRows ?? r.count ?? 0 });
