// The operator's status document: named checks, none of which names a tenant or a wallet.
import type { Database } from "bun:sqlite";
import { jobCounts } from "../../sync/queue.ts";
import type { DatabaseHealth } from "../health.ts";

type Level = "ok" | "warn" | "critical";
export interface Check { name: string; status: Level; value: number | string | null; threshold: number | string | null; message: string }

export interface OpsOptions {
  now?: Date;
  issuerPollSeconds: number;
  mintPollSeconds: number;
  rpcErrors: () => { errors: number; total: number };
  database: Pick<DatabaseHealth, "check" | "noteError">;
}

export function opsStatus(sqlite: Database, opts: OpsOptions) {
  const now = opts.now ?? new Date();
  const checks: Check[] = [databaseCheck(opts.database)];
  // The other checks read the ledger: one that cannot is critical, and the rest still report.
  const guarded = (names: string[], run: () => Check[]) => {
    try {
      checks.push(...run());
    } catch (e) {
      opts.database.noteError(e);
      for (const name of names) checks.push({ name, status: "critical", value: null, threshold: null, message: "Could not be read from the ledger database." });
    }
  };
  guarded(["sync_queue_draining", "failed_syncs"], () => syncChecks(sqlite, now));
  guarded(["issuer_feed_freshness"], () => [feedCheck(sqlite, now, "issuer_feed_freshness", "issuer", opts.issuerPollSeconds)]);
  guarded(["mint_poll_freshness"], () => [feedCheck(sqlite, now, "mint_poll_freshness", "mint_poll", opts.mintPollSeconds)]);
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
function databaseCheck(health: Pick<DatabaseHealth, "check">): Check {
  const fault = health.check();
  if (fault) return { name: "database", status: "critical", value: fault.kind, threshold: null, message: `Since ${fault.since}: ${fault.message}.` };
  return { name: "database", status: "ok", value: "readable", threshold: null, message: "The ledger database answers and is the file the server opened." };
}

function syncChecks(sqlite: Database, now: Date): Check[] {
  const counts = jobCounts(sqlite);
  const oldest = sqlite.query("SELECT min(requested_at) AS t FROM sync_jobs WHERE status = 'queued'").get() as { t: string | null };
  const waitSeconds = oldest.t ? Math.max(0, Math.round((now.getTime() - Date.parse(oldest.t)) / 1000)) : 0;
  return [
    {
      name: "sync_queue_draining", status: waitSeconds > 3600 ? "critical" : waitSeconds > 600 ? "warn" : "ok", value: waitSeconds, threshold: 600,
      message: `${counts.queued} queued, ${counts.running} running; oldest queued job waits ${waitSeconds} s.`,
    },
    {
      name: "failed_syncs", status: counts.failed > 0 ? "warn" : "ok", value: counts.failed, threshold: 0,
      message: counts.failed ? `${counts.failed} sync jobs failed after every retry.` : "No sync failed.",
    },
  ];
}

function feedCheck(sqlite: Database, now: Date, name: string, feed: "issuer" | "mint_poll", period: number): Check {
  const row = sqlite.query("SELECT last_success_at, last_error FROM feed_status WHERE name = ?").get(feed) as { last_success_at: string | null; last_error: string | null } | null;
  const age = row?.last_success_at ? Math.round((now.getTime() - Date.parse(row.last_success_at)) / 1000) : null;
  const status: Level = age === null ? "warn" : age > period * 3 ? "critical" : age > period * 1.5 ? "warn" : "ok";
  return {
    name, status, value: age, threshold: period * 1.5,
    message: age === null ? `No successful ${feed.replace("_", " ")} yet.` : `Last success ${age} s ago${row?.last_error ? `; last error: ${row.last_error}` : ""}.`,
  };
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
