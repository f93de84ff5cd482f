// The operator's status document: named checks, none of which names a tenant or a wallet.
import type { Database } from "bun:sqlite";
import { jobCounts } from "../../sync/queue.ts";

type Level = "ok" | "warn" | "critical";
export interface Check { name: string; status: Level; value: number | string | null; threshold: number | string | null; message: string }

export function opsStatus(sqlite: Database, opts: { now?: Date; issuerPollSeconds: number; mintPollSeconds: number; rpcErrors: () => { errors: number; total: number } }) {
  const now = opts.now ?? new Date();
  const checks: Check[] = [];
  try {
    sqlite.query("SELECT 1").get();
    checks.push({ name: "database", status: "ok", value: "readable", threshold: null, message: "The ledger database answers." });
  } catch (e) {
    checks.push({ name: "database", status: "critical", value: "unreadable", threshold: null, message: "The ledger database does not answer." });
  }
  const counts = jobCounts(sqlite);
  const oldest = sqlite.query("SELECT min(requested_at) AS t FROM sync_jobs WHERE status = 'queued'").get() as { t: string | null };
  const waitSeconds = oldest.t ? Math.max(0, Math.round((now.getTime() - Date.parse(oldest.t)) / 1000)) : 0;
  checks.push({
    name: "sync_queue_draining", status: waitSeconds > 3600 ? "critical" : waitSeconds > 600 ? "warn" : "ok", value: waitSeconds, threshold: 600,
    message: `${counts.queued} queued, ${counts.running} running; oldest queued job waits ${waitSeconds} s.`,
  });
  checks.push({
    name: "failed_syncs", status: counts.failed > 0 ? "warn" : "ok", value: counts.failed, threshold: 0,
    message: counts.failed ? `${counts.failed} sync jobs failed after every retry.` : "No sync failed.",
  });
  for (const [name, feed, period] of [["issuer_feed_freshness", "issuer", opts.issuerPollSeconds], ["mint_poll_freshness", "mint_poll", opts.mintPollSeconds]] as const) {
    const row = sqlite.query("SELECT last_success_at, last_error FROM feed_status WHERE name = ?").get(feed) as { last_success_at: string | null; last_error: string | null } | null;
    const age = row?.last_success_at ? Math.round((now.getTime() - Date.parse(row.last_success_at)) / 1000) : null;
    const status: Level = age === null ? "warn" : age > period * 3 ? "critical" : age > period * 1.5 ? "warn" : "ok";
    checks.push({
      name, status, value: age, threshold: period * 1.5,
      message: age === null ? `No successful ${feed.replace("_", " ")} yet.` : `Last success ${age} s ago${row?.last_error ? `; last error: ${row.last_error}` : ""}.`,
    });
  }
  const rpc = opts.rpcErrors();
  const rate = rpc.total ? rpc.errors / rpc.total : 0;
  checks.push({
    name: "rpc_errors", status: rate > 0.5 ? "critical" : rate > 0.1 ? "warn" : "ok", value: Number(rate.toFixed(4)), threshold: 0.1,
    message: `${rpc.errors} of ${rpc.total} RPC requests failed since start.`,
  });
  const worst: Level = checks.some((c) => c.status === "critical") ? "critical" : checks.some((c) => c.status === "warn") ? "warn" : "ok";
  return { status: worst, checkedAt: now.toISOString(), checks };
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
