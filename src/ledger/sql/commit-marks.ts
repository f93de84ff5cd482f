// Reads remembered between requests while nothing was committed to a SQLite ledger: what lets the
// key lookup and the registration check skip their statement on a quiet ledger and still see a
// revocation made by `ca-ledger keys revoke` in another process at the very next request
// (docs/performance.md#the-key-lookup).
//
// A commit mark is one small statement: SQLite's `data_version` moves whenever another connection
// (another process, or the worker thread's own connection) commits, and `total_changes()` whenever
// this connection changes a row. Both the same: nothing was committed since. PostgreSQL has no such
// cheap counter: there every `get` reads.
//
// (Reading SQLite's WAL-index header from the `-shm` file instead would cost no statement at all,
// but opening that file from this process and closing it again drops every POSIX lock the process
// holds on it, SQLite's among them, and another process then takes the ledger's shared memory for
// unused: tried, and caught by the dashboard's end-to-end test.)
import type { Sql } from "./port.ts";
import { query, sql, statements } from "./statement.ts";

const markSql = statements("commit-marks", {
  mark: query<Record<never, never>, { v: number; t: number }>(() => sql`SELECT data_version AS v, total_changes() AS t FROM pragma_data_version()`, {
    engines: ["sqlite"],
  }),
});

/** This connection's commit mark now (SQLite); on `on`, so that it runs inside a transaction in progress. */
async function commitMark(on: Sql): Promise<string> {
  const r = (await on.get(markSql.mark))!;
  return `${r.v} ${r.t}`;
}

/**
 * Values read from the ledger, remembered by key while nothing at all is committed since each was
 * read; on PostgreSQL every `get` reads. At most `max` are kept (all are dropped when full: they
 * are read again at the next commit anyway).
 */
export function whileUncommitted<V>(db: Sql, max: number) {
  const known = new Map<string, { value: V; mark: string }>();
  return {
    /**
     * The value remembered for `key`, or `read`'s on `on` (the ledger, or a transaction of its in
     * progress); `keep` says which values to remember.
     */
    async get(key: string, read: (on: Sql) => Promise<V>, keep: (value: V) => boolean = () => true, on: Sql = db): Promise<V> {
      if (db.dialect !== "sqlite") return read(on);
      const mark = await commitMark(on); // before the read: a commit after it shows at the next get
      const seen = known.get(key);
      if (seen?.mark === mark) return seen.value;
      const value = await read(on);
      if (keep(value)) {
        if (known.size >= max) known.clear();
        known.set(key, { value, mark });
      } else known.delete(key);
      return value;
    },
  };
}
