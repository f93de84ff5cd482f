// The issuer feed poll: every revision is stored (hashed, append-only), which marks the mints it
// speaks of dirty; the booker re-books the wallets holding them. A feed that answers but whose rows
// are mostly refused is reported `degraded`, not fresh; so is a feed that passes the poll's caps
// (bytes, rows), and nothing of that poll is stored. A feed turned off is not polled at all.
import { issuerFeedOff, type Config } from "../config.ts";
import type { Sql } from "../ledger/sql/port.ts";
import { markFeed, storeObservations } from "../ledger/store.ts";
import type { FetchLike } from "../net/http-transport.ts";
import { createIssuerClient, FeedOverCap } from "../sources/xstocks/client.ts";
import { attachIsins } from "../sources/xstocks/records.ts";

export interface IssuerPollDeps {
  db: Sql;
  config: Config;
  fetch?: FetchLike;
  now?: () => Date;
}

/** Above this share of refused rows the feed is degraded (a changed format, a broken upstream). */
export const DEGRADED_REJECTION_SHARE = 0.5;

export interface IssuerPollResult {
  added: number;
  rejected: number;
  rows: number;
  off?: true;
  degraded?: string;
}

export async function pollIssuer(deps: IssuerPollDeps): Promise<IssuerPollResult> {
  const { db, config } = deps;
  // Turned off (XSTOCKS_API_URL=off): records come from operators' imports only.
  if (issuerFeedOff(config)) return { added: 0, rejected: 0, rows: 0, off: true };
  const now = deps.now ?? (() => new Date());
  const caps = { maxBytes: config.issuerFeedMaxMib * 1024 * 1024, maxRows: config.issuerFeedMaxRecords };
  const issuer = createIssuerClient({ baseUrl: config.xstocksApiUrl, fetch: deps.fetch, caps });
  try {
    const [assets, history, upcoming] = await Promise.all([issuer.assets(), issuer.corporateActionsHistory(), issuer.corporateActionsUpcoming()]);
    const rejections = [...assets.rejections, ...history.rejections, ...upcoming.rejections];
    const records = [...history.records, ...upcoming.records];
    const rows = assets.instruments.length + records.length + rejections.length;
    const lists = [
      ["assets", assets.instruments.length, assets.rejections.length],
      ["history", history.records.length, history.rejections.length],
      ["upcoming", upcoming.records.length, upcoming.rejections.length],
    ] as const;
    const res = await storeObservations(
      db,
      {
        instruments: attachIsins(assets.instruments, records), // the asset list has no ISINs; the issuer's records do
        issuerRecords: records,
        issuerRejections: rejections.map((r) => ({ source: r.source, payload: r.payload, reason: r.reason })),
      },
      now(),
    );
    // Per list: a broken history feed must not hide behind a healthy asset list.
    const degraded =
      lists
        .filter(([, kept, refused]) => kept + refused > 0 && refused / (kept + refused) > DEGRADED_REJECTION_SHARE)
        .map(([name, kept, refused]) => `${refused} of ${kept + refused} ${name} rows refused (${Math.round((refused / (kept + refused)) * 100)}%)`)
        .join("; ") || null;
    await markFeed(db, "issuer", { ok: true, degraded }, now());
    return { added: res.issuerRevisionsAdded, rejected: rejections.length, rows };
  } catch (e) {
    // Over a cap the feed answered, so it is degraded (not failed), and nothing it sent is kept.
    if (e instanceof FeedOverCap) {
      const over = e.cap === "bytes" ? `more than ${config.issuerFeedMaxMib} MiB (ISSUER_FEED_MAX_MIB)` : `more than ${e.limit} rows (ISSUER_FEED_MAX_RECORDS)`;
      const degraded = `over its cap: ${over} in one poll; nothing of this poll was stored`;
      await markFeed(db, "issuer", { ok: true, degraded }, now());
      return { added: 0, rejected: 0, rows: 0, degraded };
    }
    await markFeed(db, "issuer", { ok: false, error: e instanceof Error ? e.message : String(e) }, now());
    throw e;
  }
}
