// Whether the ledger database under a running server can still be trusted.
//
// `SELECT 1` reads no page, so it cannot tell. A full `PRAGMA quick_check` reads every page: its
// cost grows with the ledger, it would hold the server's one thread, and `ca-ledger verify` already
// runs it (from cron). So the server watches what is cheap and certain:
// - every SQLite error a request or a worker step hits is classified here; damage
//   (SQLITE_CORRUPT, SQLITE_NOTADB) is remembered for good, since SQLite never heals a bad page;
// - at most once per `intervalMs` (and on a timer, so it is noticed without traffic) the path is
//   compared with the file the server opened: deleted or replaced, the open handle keeps
//   answering from the old inode while every write is lost and every key change made by
//   `ca-ledger keys` goes to another file; and the file's first bytes must still be SQLite's.
// A fault is logged once, when first seen. A PostgreSQL ledger has no file to watch: its
// server's errors are classified the same way (damage it reports, or a server out of reach), and
// the same timer asks it `SELECT 1`, so health turns red while it does not answer and green
// again when it does.
import { urlHost } from "../describe-url.ts";
import type { Database } from "bun:sqlite";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { Logger } from "../log.ts";
import type { Ledger } from "./db.ts";
import { ping as answers } from "./sql/dialect.ts";
import type { Sql } from "./sql/port.ts";

export interface DatabaseFault {
  /**
   * `damaged`: pages or header are broken. `missing`: the path no longer holds the open file.
   * `unreachable`: the PostgreSQL server does not answer (cleared as soon as it does again).
   */
  kind: "damaged" | "missing" | "unreachable";
  message: string;
  since: string;
}

export type ErrorClass = "damaged" | "unavailable" | null;

/** How long the PostgreSQL probe waits for `SELECT 1` before calling the server unreachable. */
const PING_TIMEOUT_MS = 2000;

const DAMAGE_CODES = /^SQLITE_(CORRUPT|NOTADB)/;
const DAMAGE_TEXT = /database disk image is malformed|file is not a database/i;
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL)/;
const UNAVAILABLE_TEXT = /database is locked|unable to open database|disk I\/O error|database or disk is full|database (has )?closed|closed database/i;
const HEADER = "SQLite format 3\u0000";
// PostgreSQL's SQLSTATE classes: data or an index corrupted; a connection failure, the server
// shutting down or refusing connections, too many connections. Bun's own codes for a connection
// it lost or could not make.
const PG_DAMAGE_STATES = /^XX00[12]$/;
const PG_UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/;
const PG_UNAVAILABLE_CODES = /^(ERR_POSTGRES_(CONNECTION_[A-Z_]+|IDLE_TIMEOUT|LIFETIME_TIMEOUT)|ECONNREFUSED|ECONNRESET)$/;

/** What a thrown error says about the database: damaged, unavailable (for now), or nothing. */
export function classifyDatabaseError(error: unknown): ErrorClass {
  const code = String((error as { code?: unknown })?.code ?? "");
  const state = String((error as { errno?: unknown })?.errno ?? "");
  const message = String((error as Error)?.message ?? "");
  if (DAMAGE_CODES.test(code) || DAMAGE_TEXT.test(message) || PG_DAMAGE_STATES.test(state)) return "damaged";
  if (UNAVAILABLE_CODES.test(code) || UNAVAILABLE_TEXT.test(message) || PG_UNAVAILABLE_STATES.test(state) || PG_UNAVAILABLE_CODES.test(code)) return "unavailable";
  return null;
}

export interface DatabaseHealth {
  /** Classifies an error a request or worker step hit, remembering damage; null: not the database's. */
  noteError(error: unknown): ErrorClass;
  /**
   * What a 503 says when an error `noteError` called unavailable kept a request from the ledger:
   * on PostgreSQL, that the server at host:port is unreachable (keys live there too, so even the
   * ops routes cannot check theirs; docs/operations.md#postgresql-out-of-reach).
   */
  unavailableMessage(error: unknown): string;
  /** Null while the database can be trusted, else the fault (a check of the file at most once per interval). */
  check(): DatabaseFault | null;
  /** Checks on a timer, so a fault is logged without traffic. */
  start(): void;
  stop(): void;
}

export function watchDatabase(ledger: Ledger | { engine?: "sqlite"; sqlite: Database; path: string }, opts: { logger?: Logger; intervalMs?: number; now?: () => number } = {}): DatabaseHealth {
  const intervalMs = opts.intervalMs ?? 1000;
  const now = opts.now ?? Date.now;
  const file = ledger.engine === "postgres" ? null : ledger;
  const server = ledger.engine === "postgres" ? ledger : null;
  const opened = file && fileIdentity(file.path);
  // Where PostgreSQL is, for messages: host and port only (the URL is already without its password).
  const serverHost = server ? urlHost(server.url) : null;
  let fault: DatabaseFault | null = null;
  // PostgreSQL out of reach: not remembered for good like damage, since the server may come back.
  let unreachable: DatabaseFault | null = null;
  let pinging = false;
  let lastProbe = -Infinity;
  let timer: ReturnType<typeof setInterval> | null = null;

  const record = (kind: DatabaseFault["kind"], message: string) => {
    if (fault) return;
    fault = { kind, message, since: new Date(now()).toISOString() };
    opts.logger?.error("ledger database unusable", { kind, reason: message });
  };

  /** PostgreSQL: one `SELECT 1`, bounded in time (a server out of reach may never answer). */
  const ping = async (db: Sql) => {
    if (pinging) return;
    pinging = true;
    let timeout: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([answers(db), new Promise((_, reject) => (timeout = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS)))]);
      if (unreachable) opts.logger?.info("ledger database reachable again", { since: unreachable.since });
      unreachable = null;
    } catch (e) {
      if (!unreachable) {
        unreachable = { kind: "unreachable", message: `PostgreSQL at ${serverHost} does not answer (${(e as Error)?.message ?? e})`, since: new Date(now()).toISOString() };
        opts.logger?.error("ledger database unreachable", { reason: unreachable.message });
      }
    } finally {
      clearTimeout(timeout);
      pinging = false;
    }
  };

  const probe = () => {
    if (server) return void ping(server.db); // its answers, and its errors, say what is wrong
    if (!file) return;
    const current = fileIdentity(file.path);
    if (!current) return record("missing", "ledger.db was deleted while the server had it open; restore it from a backup and restart");
    if (opened && (current.dev !== opened.dev || current.ino !== opened.ino)) {
      return record("missing", "ledger.db was replaced by another file while the server had it open; restart the server to use it");
    }
    const header = readHeader(file.path); // null when it could not be read (e.g. out of file handles): no verdict
    if (header !== null && header !== HEADER) return record("damaged", "the first bytes of ledger.db are no longer an SQLite header");
    try {
      file.sqlite.query("SELECT count(*) FROM sqlite_master").get();
    } catch (e) {
      health.noteError(e);
    }
  };

  const health: DatabaseHealth = {
    noteError(error) {
      const kind = classifyDatabaseError(error);
      if (kind === "damaged") record("damaged", `${file ? "SQLite" : "PostgreSQL"} reports damage: ${(error as Error).message}`);
      return kind;
    },
    unavailableMessage(error) {
      if (!serverHost) return "The ledger database cannot be read right now.";
      const code = (error as { code?: unknown })?.code;
      return (
        `The ledger database, PostgreSQL at ${serverHost}, is unreachable (${typeof code === "string" && code ? code : "no answer"}): ` +
        "no key can be checked and nothing read until it answers again."
      );
    },
    check() {
      if (!fault && now() - lastProbe >= intervalMs) {
        lastProbe = now();
        probe();
      }
      return fault ?? unreachable;
    },
    start() {
      timer ??= setInterval(() => health.check(), Math.max(intervalMs, 1000));
      timer.unref?.();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
  return health;
}

function fileIdentity(path: string): { dev: number; ino: number } | null {
  try {
    const s = statSync(path);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return null;
  }
}

function readHeader(path: string): string | null {
  let fd: number | null = null;
  try {
    fd = openSync(path, "r");
    const buf = Buffer.alloc(HEADER.length);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString("latin1");
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
