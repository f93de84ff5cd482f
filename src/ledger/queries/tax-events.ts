// Income events for the tax exports: each standing income action a wallet's v1 income shows, in
// time order, with the ISIN of the instrument held (the matched issuer record's, else the
// instrument's). Read off the partial index on owner × effective_at that the v1 list uses;
// amounts as the action's detail shows them (rounded for people).
import type { DateRange } from "../../domain/date-range.ts";
import type { TaxEvent } from "../../domain/tax-exports.ts";
import { splice, storedValues, type StoredWallet } from "../action-rows.ts";
import type { actionDetailBase } from "../projections.ts";
import type { Sql } from "../sql/port.ts";

// The matched issuer record, as stored in issuer_revisions, gives the ISIN of the instrument held;
// the event's record names it.
export const taxEventsSql = `SELECT e.detail AS template, a.id, a.owner, a.evidence_sha256, a.usd, a.wallet_values, i.isin,
  (SELECT json_extract(r.payload, '$.xstockIsin') FROM issuer_revisions r
    WHERE r.event_id = json_extract(e.record, '$.matched.eventId')
      AND r.version = CAST(json_extract(e.record, '$.matched.version') AS INTEGER)
      AND r.payload_sha256 = json_extract(e.record, '$.matched.sha256')) AS "recordIsin"
  FROM actions a JOIN action_events e ON e.id = a.event_id LEFT JOIN instruments i ON i.mint = a.mint
  WHERE a.owner = ?1 AND a.v1_kind IS NOT NULL AND a.effective_at >= ?2 AND a.effective_at < ?3 AND a.treatment = 'income'
  ORDER BY a.effective_at, a.id LIMIT ?4`;

type Detail = ReturnType<typeof actionDetailBase>;

export function taxEventQueries(db: Sql) {
  /** At most `max` events, oldest first (`max + 1` lets the caller refuse an oversize export). */
  return async (owner: string, range: DateRange, max: number): Promise<TaxEvent[]> =>
    (await db.all<StoredWallet & { template: string; isin: string | null; recordIsin: string | null }>(taxEventsSql, owner, range.from, range.before, max)).map((r) => {
      const d = JSON.parse(splice(r.template, storedValues(r))) as Detail;
      return {
        effectiveAt: d.effectiveAt!, owner: d.owner, mint: d.mint, symbol: d.symbol, isin: r.recordIsin ?? r.isin, type: d.type, decimals: d.decimals,
        units: d.incomeUnits, grossUsd: d.grossUsd ?? null, withholdingTaxRate: d.withholdingTaxRate ?? null, withholdingTaxUsd: d.withholdingTaxUsd ?? null,
        retainedUsd: d.retainedUsd ?? null, usd: d.usd, signature: d.chain.signature!, evidenceSha256: d.evidenceSha256, reason: d.reason, warnings: d.warnings,
      };
    });
}
