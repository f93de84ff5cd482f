// Portfolio and yield: the engine's position and yield records for a wallet, with income totals
// summed from the journal itself (income is always the sum of the journal).
import type { Database } from "bun:sqlite";
import { add, formatExact, parseDecimal, ZERO, type Rat } from "../../domain/numbers.ts";
import type { PositionRecord, YieldRecord } from "../../domain/types.ts";

export function portfolioQueries(sqlite: Database) {
  const positions = sqlite.query("SELECT payload FROM positions WHERE owner = ? ORDER BY mint");
  const totals = sqlite.query("SELECT mint, usd, unvalued_events FROM income_totals WHERE owner = ?");
  const unclassified = sqlite.query("SELECT count(*) AS n FROM actions WHERE owner = ? AND v1_kind = 'unclassified_adjustment'");
  const yields = sqlite.query("SELECT payload FROM yields WHERE owner = ?");

  /** Income per mint as the last replay summed it from the journal (see refreshIncomeTotals). */
  const incomeByMint = (owner: string) => {
    const byMint = new Map<string, Rat>();
    let unvaluedEvents = 0;
    for (const r of totals.all(owner) as { mint: string; usd: string; unvalued_events: number }[]) {
      byMint.set(r.mint, parseDecimal(r.usd));
      unvaluedEvents += r.unvalued_events;
    }
    return { byMint, unvaluedEvents };
  };

  return {
    portfolio(owner: string) {
      const { byMint, unvaluedEvents } = incomeByMint(owner);
      let total = ZERO;
      const list = (positions.all(owner) as { payload: string }[]).map((r) => {
        const p = JSON.parse(r.payload) as PositionRecord;
        const income = byMint.get(p.mint) ?? ZERO;
        total = add(total, income);
        return {
          mint: p.mint, symbol: p.symbol, decimals: p.decimals, rawBalance: p.rawBalance, quantity: p.quantity, multiplier: p.multiplier,
          principalQuantity: p.principalQuantity, convertibleQuantity: p.convertibleQuantity, incomeUsd: formatExact(income),
          status: p.status, statusReason: p.statusReason,
        };
      });
      for (const [mint, v] of byMint) if (!list.some((p) => p.mint === mint)) total = add(total, v);
      return {
        unclassifiedAdjustments: (unclassified.get(owner) as { n: number }).n,
        totals: { incomeUsd: formatExact(total), unvaluedIncomeEvents: unvaluedEvents },
        positions: list,
      };
    },
    yield(owner: string) {
      const row = yields.get(owner) as { payload: string } | null;
      const records = row ? (JSON.parse(row.payload) as YieldRecord[]) : [];
      const byMint = new Map<string, { mint: string; symbol: string | null; windows: Omit<YieldRecord, "owner" | "mint" | "symbol">[] }>();
      for (const y of records) {
        let p = byMint.get(y.mint);
        if (!p) byMint.set(y.mint, (p = { mint: y.mint, symbol: y.symbol, windows: [] }));
        p.windows.push({
          window: y.window, from: y.from, to: y.to, status: y.status, partialCode: y.partialCode, incomeUsd: y.incomeUsd,
          incomeUnits: y.incomeUnits, averageQuantity: y.averageQuantity, shareYield: y.shareYield,
          annualisedShareYield: y.annualisedShareYield, distributionPerShareUsd: y.distributionPerShareUsd,
        });
      }
      return { positions: [...byMint.values()] };
    },
  };
}
