// The operator's status document: named checks, none of which names a tenant or a wallet.
import { deliveryQueueAgeSeconds } from "../outbox.ts";
import { jobCounts, leaseSeconds } from "../queue.ts";
import type { Gauges } from "../../http/metrics.ts";
import { dirtyBacklog } from "../dirty.ts";
import type { DatabaseHealth } from "../health.ts";
import { probeSchema } from "../sql/dialect.ts";
import type { Sql } from "../sql/port.ts";
import { actionSql } from "../tables/actions.ts";
import { feedStatusSql } from "../tables/feed-status.ts";
import { issuerRevisionSql } from "../tables/issuer-revisions.ts";
import { syncJobSql } from "../tables/sync-jobs.ts";
import { unbookedRevisionSql } from "../tables/unbooked-revisions.ts";

type Level = "ok" | "warn" | "critical";
export interface Check {
  name: string;
  status: Level;
  value: number | string | null;
  threshold: number | string | null;
  message: string;
}

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

export async function opsStatus(db: Sql, opts: OpsOptions) {
  const now = opts.now ?? new Date();
  const checks: Check[] = [await databaseCheck(db, opts.database)];
  // The other checks read the ledger: a group that cannot is critical, and the rest still report.
  const guarded = async (group: string, run: () => Promise<Check[]>) => {
    try {
      checks.push(...(await run()));
    } catch (e) {
      opts.database?.noteError(e);
      checks.push({ name: group, status: "critical", value: null, threshold: null, message: "Could not be read from the ledger database." });
    }
  };
  await guarded("sync_queue", () => syncChecks(db, now, opts.jobDeadlineSeconds));
  await guarded("booking", () => bookingChecks(db, now));
  await guarded("feeds", () => feedChecks(db, now, opts));
  await guarded("issuer_feed_churn", async () => [await churnCheck(db, now)]);
  const rpc = opts.rpcErrors();
  const rate = rpc.total ? rpc.errors / rpc.total : 0;
  checks.push({
    name: "rpc_errors",
    status: rate > 0.5 ? "critical" : rate > 0.1 ? "warn" : "ok",
    value: Number(rate.toFixed(4)),
    threshold: 0.1,
    message: `${rpc.errors} of ${rpc.total} RPC requests failed since start.`,
  });
  const worst: Level = checks.some((c) => c.status === "critical") ? "critical" : checks.some((c) => c.status === "warn") ? "warn" : "ok";
  return { status: worst, checkedAt: now.toISOString(), checks };
}

/** Critical while the database is damaged, its file is gone, or PostgreSQL does not answer (see ledger/health.ts). */
async function databaseCheck(db: Sql, health?: Pick<DatabaseHealth, "check">): Promise<Check> {
  let fault: ReturnType<DatabaseHealth["check"]>;
  try {
    fault = health ? health.check() : (await probeSchema(db), null);
  } catch (e) {
    fault = { kind: "damaged", message: String((e as Error)?.message ?? e), since: new Date().toISOString() };
  }
  if (fault) return { name: "database", status: "critical", value: fault.kind, threshold: null, message: `Since ${fault.since}: ${fault.message}.` };
  return { name: "database", status: "ok", value: "readable", threshold: null, message: "The ledger database answers and is the file the server opened." };
}

async function feedChecks(db: Sql, now: Date, opts: OpsOptions): Promise<Check[]> {
  const checks: Check[] = [];
  for (const [name, feed, period] of [
    ["issuer_feed_freshness", "issuer", opts.issuerPollSeconds],
    ["mint_poll_freshness", "mint_poll", opts.mintPollSeconds],
  ] as const) {
    if (feed === "issuer" && opts.issuerFeedOff) {
      checks.push({ name, status: "ok", value: "off", threshold: null, message: "The issuer feed is off (XSTOCKS_API_URL=off): issuer records come from `ca-ledger import issuer-records`." });
      continue;
    }
    const row = await db.get(feedStatusSql.read, { name: feed });
    const age = row?.last_success_at ? Math.round((now.getTime() - Date.parse(row.last_success_at)) / 1000) : null;
    const stale: Level = age === null ? "warn" : age > period * 3 ? "critical" : age > period * 1.5 ? "warn" : "ok";
    // A feed that answers with mostly refused rows is not fresh, whatever its age says.
    const status: Level = stale === "ok" && row?.degraded ? "warn" : stale;
    checks.push({
      name,
      status,
      value: age,
      threshold: period * 1.5,
      message:
        (age === null ? `No successful ${feed.replace("_", " ")} yet` : `Last success ${age} s ago${row?.degraded ? `, degraded: ${row.degraded}` : ""}`) +
        `${row?.last_error ? `; last error: ${row.last_error}` : ""}.`,
    });
  }
  return checks;
}

/** A record revised this many times within the window, none of it changing a booking, is churn. */
export const CHURN = { revisions: 3, windowHours: 24 } as const;

/**
 * The issuer (or an operator) revising records again and again while no figure changes: every
 * revision is stored and listed, and nothing is booked again (docs/journal.md#revisions-that-change-no-figure),
 * but such a feed is worth knowing about. Counts records, naming none (a record's mint would say
 * which instruments some tenant holds).
 */
async function churnCheck(db: Sql, now: Date): Promise<Check> {
  const since = new Date(now.getTime() - CHURN.windowHours * 3_600_000).toISOString();
  const n = (await db.get(unbookedRevisionSql.churning, { since, revisions: CHURN.revisions }))!.n;
  const rule = `revised at least ${CHURN.revisions} times in ${CHURN.windowHours} h without changing any booking`;
  return {
    name: "issuer_feed_churn",
    status: n > 0 ? "warn" : "ok",
    value: n,
    threshold: 0,
    message: n > 0 ? `The issuer feed is churning: ${n} record(s) ${rule}; each revision is stored and listed, nothing is booked again.` : `No record was ${rule}.`,
  };
}

/** The ledger's gauges for the metrics: jobs by state, issuer revisions, actions by type, the webhook queue's age. */
export async function readGauges(db: Sql, now = new Date()): Promise<Gauges> {
  return {
    syncJobs: await jobCounts(db),
    issuerRecords: (await db.get(issuerRevisionSql.count))!.n,
    actionsByType: Object.fromEntries((await db.all(actionSql.countByType)).map((r) => [r.type, r.n])),
    webhookQueueAgeSeconds: await deliveryQueueAgeSeconds(db, now),
  };
}

const secondsSince = (now: Date, iso: string | null): number => (iso ? Math.max(0, Math.round((now.getTime() - Date.parse(iso)) / 1000)) : 0);

/**
 * The queue: requested and scheduled (following) syncs must start, jobs must end within their
 * deadline, and failures after every retry are named.
 */
async function syncChecks(db: Sql, now: Date, deadlineSeconds: number): Promise<Check[]> {
  const at = now.toISOString();
  const counts = await jobCounts(db);
  const waiting = (await db.get(syncJobSql.oldestDue, { at }))!;
  const waitSeconds = secondsSince(now, waiting.t);
  const stuckBefore = new Date(now.getTime() - deadlineSeconds * 1500).toISOString();
  const stuck = (await db.get(syncJobSql.runningSince, { before: stuckBefore }))!.n;
  const overran = (await db.get(syncJobSql.overran))!.n;
  const behind = await waitingBehindStuck(db, now);
  return [
    {
      name: "sync_queue_draining",
      status: waitSeconds > 3600 ? "critical" : waitSeconds > 600 ? "warn" : "ok",
      value: waitSeconds,
      threshold: 600,
      message: `${counts.queued} queued, ${counts.running} running; the oldest due sync (requested or scheduled) waits ${waitSeconds} s.`,
    },
    {
      name: "sync_deadlines",
      status: stuck > 0 ? "critical" : overran > 0 ? "warn" : "ok",
      value: stuck + overran,
      threshold: 0,
      message:
        stuck > 0
          ? `${stuck} running sync jobs are past 1.5 × their ${deadlineSeconds} s deadline (the worker may be stuck).`
          : overran > 0
            ? `${overran} wallets' last sync hit its ${deadlineSeconds} s deadline (a slow or endless provider history; the rest is read next time).`
            : "Every sync ended within its deadline.",
    },
    {
      name: "sync_waiting_behind_stuck",
      status: behind.waiting > 0 ? "warn" : "ok",
      value: behind.waiting,
      threshold: 0,
      message:
        behind.waiting > 0
          ? `${behind.waiting} due sync${behind.waiting === 1 ? " has" : "s have"} waited over ${QUIET_SECONDS} s while ${behind.stuck} running sync${behind.stuck === 1 ? " shows" : "s show"} no progress for over ${QUIET_SECONDS} s (a provider hanging on some wallets; see docs/operations.md#fair-share).`
          : "No due sync waits behind running syncs that show no progress.",
    },
    {
      name: "failed_syncs",
      status: counts.failed > 0 ? "warn" : "ok",
      value: counts.failed,
      threshold: 0,
      message: counts.failed ? `${counts.failed} sync jobs failed after every retry.` : "No sync failed.",
    },
  ];
}

/** A running sync silent this long (no progress, no claim), and a due sync waiting this long, are worth a warning together. */
const QUIET_SECONDS = 60;

/**
 * Due syncs that wait while the running ones say nothing: the slots are held by syncs stuck on a
 * provider's answers (docs/operations.md#fair-share). A running job's last sign of life is its
 * claim or its last progress report, each of which sets its lease to `leaseSeconds` ahead.
 */
async function waitingBehindStuck(db: Sql, now: Date): Promise<{ waiting: number; stuck: number }> {
  const quietSince = new Date(now.getTime() + (leaseSeconds - QUIET_SECONDS) * 1000).toISOString();
  const stuck = (await db.get(syncJobSql.quiet, { quietSince }))!.n;
  if (stuck === 0) return { waiting: 0, stuck };
  const dueBefore = new Date(now.getTime() - QUIET_SECONDS * 1000).toISOString();
  const waiting = (await db.get(syncJobSql.dueBefore, { before: dueBefore }))!.n;
  return { waiting, stuck };
}

/** Booking keeps up: dirty marks are booked promptly, and none is held back by a failure. */
async function bookingChecks(db: Sql, now: Date): Promise<Check[]> {
  const backlog = await dirtyBacklog(db, now);
  const age = secondsSince(now, backlog.oldestMarkedAt);
  return [
    {
      name: "booking_backlog",
      status: age > 3600 ? "critical" : age > 600 ? "warn" : "ok",
      value: age,
      threshold: 600,
      message: `${backlog.wallets} wallets and ${backlog.mints} mints wait to be booked; the oldest for ${age} s.`,
    },
    {
      name: "booking_failures",
      status: backlog.deferred > 0 ? "warn" : "ok",
      value: backlog.deferred,
      threshold: 0,
      message: backlog.deferred ? `${backlog.deferred} wallets or mints could not be booked and are retried hourly; the log names them.` : "Every booking succeeded.",
    },
  ];
}
