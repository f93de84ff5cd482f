// Income events for the tax exports: each standing income action a wallet's v1 income shows, in
// time order, with the ISIN of the instrument held (the matched issuer record's, else the
// instrument's). Read off the partial index on owner × effective_at that the v1 list uses;
// amounts as the action's detail shows them (rounded for people).
import type { DateRange } from "../../domain/date-range.ts";
import type { TaxEvent } from "../../domain/tax-exports.ts";
import type { actionDetailBase } from "../projections.ts";
import type { Sql } from "../sql/port.ts";
import { actionDocument, actionSql } from "../tables/actions.ts";

type Detail = ReturnType<typeof actionDetailBase>;

export function taxEventQueries(db: Sql) {
  /** At most `max` events, oldest first (`max + 1` lets the caller refuse an oversize export). */
  return async (owner: string, range: DateRange, max: number): Promise<TaxEvent[]> =>
    (await db.all(actionSql.taxEvents, { owner, from: range.from, before: range.before, limit: max })).map((r) => {
      const d = JSON.parse(actionDocument(r)) as Detail;
      return {
        effectiveAt: d.effectiveAt!,
        owner: d.owner,
        mint: d.mint,
        symbol: d.symbol,
        isin: r.recordIsin ?? r.isin,
        type: d.type,
        decimals: d.decimals,
        units: d.incomeUnits,
        grossUsd: d.grossUsd ?? null,
        withholdingTaxRate: d.withholdingTaxRate ?? null,
        withholdingTaxUsd: d.withholdingTaxUsd ?? null,
        retainedUsd: d.retainedUsd ?? null,
        usd: d.usd,
        signature: d.chain.signature!,
        evidenceSha256: d.evidenceSha256,
        reason: d.reason,
        warnings: d.warnings,
      };
    });
}
