// The operator's status document: named checks, none of which names a tenant or a wallet.
import type { Database } from "bun:sqlite";
import { jobCounts } from "../../sync/queue.ts";
import { dirtyBacklog } from "../dirty.ts";
import type { DatabaseHealth } from "../health.ts";

type Level = "ok" | "warn" | "critical";
export interface Check { name: string; status: Level; value: number | string | null; threshold: number | string | null; message: string }

export interface OpsOptions {
  now?: Date;
  issuerPollSeconds: number;
  mintPollSeconds: number;
  jobDeadlineSeconds: number;
  rpcErrors: () => { errors: number; total: number };
  /** The server's watch on its database; without one, the check only reads the schema. */
  database?: Pick<DatabaseHealth, "check" | "noteError">;
  /** XSTOCKS_API_URL=off: the issuer feed is not polled, so its age is no warning. */
  issuerFeedOff?: boolean;
}

export function opsStatus(sqlite: Database, opts: OpsOptions) {
  const now = opts.now ?? new Date();
  const checks: Check[] = [databaseCheck(sqlite, opts.database)];
  // The other checks read the ledger: a group that cannot is critical, and the rest still report.
  const guarded = (group: string, run: () => Check[]) => {
    try {
      checks.push(...run());
    } catch (e) {
      opts.database?.noteError(e);
      checks.push({ name: group, status: "critical", value: null, threshold: null, message: "Could not be read from the ledger database." });
    }
  };
  guarded("sync_queue", () => syncChecks(sqlite, now, opts.jobDeadlineSeconds));
  guarded("booking", () => bookingChecks(sqlite, now));
  guarded("feeds", () => feedChecks(sqlite, now, opts));
  const rpc = opts.rpcErrors();
  const rate = rpc.total ? rpc.errors / rpc.total : 0;
  checks.push({
    name: "rpc_errors", status: rate > 0.5 ? "critical" : rate > 0.1 ? "warn" : "ok", value: Number(rate.toFixed(4)), threshold: 0.1,
    message: `${rpc.errors} of ${rpc.total} RPC requests failed since start.`,
  });
  const worst: Level = checks.some((c) => c.status === "critical") ? "critical" : checks.some((c) => c.status === "warn") ? "warn" : "ok";
  return { status: worst, checkedAt: now.toISOString(), checks };
}

/** Critical while the database is damaged or its file is gone (see ledger/health.ts). */
function databaseCheck(sqlite: Database, health?: Pick<DatabaseHealth, "check">): Check {
  let fault: ReturnType<DatabaseHealth["check"]>;
  try {
    fault = health ? health.check() : (sqlite.query("SELECT count(*) FROM sqlite_master").get(), null);
  } catch (e) {
    fault = { kind: "damaged", message: String((e as Error)?.message ?? e), since: new Date().toISOString() };
  }
  if (fault) return { name: "database", status: "critical", value: fault.kind, threshold: null, message: `Since ${fault.since}: ${fault.message}.` };
  return { name: "database", status: "ok", value: "readable", threshold: null, message: "The ledger database answers and is the file the server opened." };
}

function feedChecks(sqlite: Database, now: Date, opts: OpsOptions): Check[] {
  const checks: Check[] = [];
  for (const [name, feed, period] of [["issuer_feed_freshness", "issuer", opts.issuerPollSeconds], ["mint_poll_freshness", "mint_poll", opts.mintPollSeconds]] as const) {
    if (feed === "issuer" && opts.issuerFeedOff) {
      checks.push({ name, status: "ok", value: "off", threshold: null, message: "The issuer feed is off (XSTOCKS_API_URL=off): issuer records come from `ca-ledger import issuer-records`." });
      continue;
    }
    const row = sqlite.query("SELECT last_success_at, last_error, degraded FROM feed_status WHERE name = ?").get(feed) as { last_success_at: string | null; last_error: string | null; degraded: string | null } | null;
    const age = row?.last_success_at ? Math.round((now.getTime() - Date.parse(row.last_success_at)) / 1000) : null;
    const stale: Level = age === null ? "warn" : age > period * 3 ? "critical" : age > period * 1.5 ? "warn" : "ok";
    // A feed that answers with mostly refused rows is not fresh, whatever its age says.
    const status: Level = stale === "ok" && row?.degraded ? "warn" : stale;
    checks.push({
      name, status, value: age, threshold: period * 1.5,
      message: age === null ? `No successful ${feed.replace("_", " ")} yet.`
        : `Last success ${age} s ago${row?.degraded ? `, degraded: ${row.degraded}` : ""}${row?.last_error ? `; last error: ${row.last_error}` : ""}.`,
    });
  }
  return checks;
}

export function gaugeSource(sqlite: Database) {
  const issuer = sqlite.query("SELECT count(*) AS n FROM issuer_revisions");
  const byType = sqlite.query("SELECT type, count(*) AS n FROM actions GROUP BY type");
  return {
    syncJobs: () => jobCounts(sqlite) as Record<string, number>,
    issuerRecords: () => (issuer.get() as { n: number }).n,
    actionsByType: () => Object.fromEntries((byType.all() as { type: string; n: number }[]).map((r) => [r.type, r.n])),
  };
}

const secondsSince = (now: Date, iso: string | null): number => (iso ? Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000)) : 0);

/**
 * The queue: requested and scheduled (following) syncs must start, jobs must end within their
 * deadline, and failures after every retry are named.
 */
function syncChecks(sqlite: Database, now: Date, deadlineSeconds: number): Check[] {
  const at = now.toISOString();
  const counts = jobCounts(sqlite);
  const waiting = sqlite.query(
    `SELECT min(t) AS t FROM (SELECT min(requested_at) AS t FROM sync_jobs WHERE status = 'queued' AND (next_retry_at IS NULL OR next_retry_at <= ?1)
     UNION ALL SELECT min(next_sync_at) FROM sync_jobs WHERE status IN ('complete', 'partial', 'failed') AND next_sync_at <= ?1)`,
  ).get(at) as { t: string | null };
  const waitSeconds = secondsSince(now, waiting.t);
  const stuckBefore = new Date(now.getTime() - deadlineSeconds * 1500).toISOString();
  const stuck = (sqlite.query("SELECT count(*) AS n FROM sync_jobs WHERE status = 'running' AND started_at < ?").get(stuckBefore) as { n: number }).n;
  const overran = (sqlite.query("SELECT count(*) AS n FROM sync_jobs WHERE deadline_passed_at IS NOT NULL").get() as { n: number }).n;
  return [
    {
      name: "sync_queue_draining", status: waitSeconds > 3600 ? "critical" : waitSeconds > 600 ? "warn" : "ok", value: waitSeconds, threshold: 600,
      message: `${counts.queued} queued, ${counts.running} running; the oldest due sync (requested or scheduled) waits ${waitSeconds} s.`,
    },
    {
      name: "sync_deadlines", status: stuck > 0 ? "critical" : overran > 0 ? "warn" : "ok", value: stuck + overran, threshold: 0,
      message: stuck > 0 ? `${stuck} running sync jobs are past 1.5 × their ${deadlineSeconds} s deadline (the worker may be stuck).`
        : overran > 0 ? `${overran} wallets' last sync hit its ${deadlineSeconds} s deadline (a slow or endless provider history; the rest is read next time).`
        : "Every sync ended within its deadline.",
    },
    {
      name: "failed_syncs", status: counts.failed > 0 ? "warn" : "ok", value: counts.failed, threshold: 0,
      message: counts.failed ? `${counts.failed} sync jobs failed after every retry.` : "No sync failed.",
    },
  ];
}

/** Booking keeps up: dirty marks are booked promptly, and none is held back by a failure. */
function bookingChecks(sqlite: Database, now: Date): Check[] {
  const backlog = dirtyBacklog(sqlite, now);
  const age = secondsSince(now, backlog.oldestMarkedAt);
  return [
    {
      name: "booking_backlog", status: age > 3600 ? "critical" : age > 600 ? "warn" : "ok", value: age, threshold: 600,
      message: `${backlog.wallets} wallets and ${backlog.mints} mints wait to be booked; the oldest for ${age} s.`,
    },
    {
      name: "booking_failures", status: backlog.deferred > 0 ? "warn" : "ok", value: backlog.deferred, threshold: 0,
      message: backlog.deferred ? `${backlog.deferred} wallets or mints could not be booked and are retried hourly; the log names them.` : "Every booking succeeded.",
    },
  ];
}
