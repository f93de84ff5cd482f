// Income events for the tax exports: each standing income action a wallet's v1 income shows, in
// time order, with the ISIN of the instrument held (the matched issuer record's, else the
// instrument's). Read off the partial index on owner × effective_at that
// the v1 list uses; amounts as the action's detail shows them (rounded for people).
import type { DateRange } from "../../domain/date-range.ts";
import type { TaxEvent } from "../../domain/tax-exports.ts";
import type { ActionRecord } from "../../domain/types.ts";
import { actionDetailBase } from "../projections.ts";
import type { Sql } from "../sql/port.ts";

// The matched issuer record, as stored in issuer_revisions, gives the ISIN of the instrument held.
export const taxEventsSql = `SELECT a.detail, CASE WHEN a.detail IS NULL THEN a.payload END AS payload, i.isin,
  (SELECT json_extract(r.payload, '$.xstockIsin') FROM issuer_revisions r
    WHERE r.event_id = json_extract(coalesce(a.detail, a.payload), '$.matched.eventId')
      AND r.version = CAST(json_extract(coalesce(a.detail, a.payload), '$.matched.version') AS INTEGER)
      AND r.payload_sha256 = json_extract(coalesce(a.detail, a.payload), '$.matched.sha256')) AS "recordIsin"
  FROM actions a LEFT JOIN instruments i ON i.mint = a.mint
  WHERE a.owner = ?1 AND a.v1_kind IS NOT NULL AND a.effective_at >= ?2 AND a.effective_at < ?3 AND a.treatment = 'income'
  ORDER BY a.effective_at, a.id LIMIT ?4`;

// Details stored before the income breakdown existed lack its fields: they read as null.
type Detail = ReturnType<typeof actionDetailBase>;

export function taxEventQueries(db: Sql) {
  /** At most `max` events, oldest first (`max + 1` lets the caller refuse an oversize export). */
  return async (owner: string, range: DateRange, max: number): Promise<TaxEvent[]> =>
    (await db.all<{ detail: string | null; payload: string | null; isin: string | null; recordIsin: string | null }>(taxEventsSql, owner, range.from, range.before, max)).map((r) => {
      // Rows written before the stored detail existed carry only the payload.
      const d = (r.detail ? JSON.parse(r.detail) : actionDetailBase(JSON.parse(r.payload!) as ActionRecord)) as Detail;
      return {
        effectiveAt: d.effectiveAt!, owner: d.owner, mint: d.mint, symbol: d.symbol, isin: r.recordIsin ?? r.isin, type: d.type, decimals: d.decimals,
        units: d.incomeUnits, grossUsd: d.grossUsd ?? null, withholdingTaxRate: d.withholdingTaxRate ?? null, withholdingTaxUsd: d.withholdingTaxUsd ?? null,
        retainedUsd: d.retainedUsd ?? null, usd: d.usd, signature: d.chain.signature!, evidenceSha256: d.evidenceSha256, reason: d.reason, warnings: d.warnings,
      };
    });
}
