// Portfolio and yield: the engine's position and yield records for a wallet, with income totals
// summed from the journal itself (income is always the sum of the journal).
import type { Database } from "bun:sqlite";
import { add, formatExact, parseDecimal, ZERO, type Rat } from "../../domain/numbers.ts";
import type { PositionRecord, YieldRecord } from "../../domain/types.ts";

export function portfolioQueries(sqlite: Database) {
  const positions = sqlite.query("SELECT payload FROM positions WHERE owner = ? ORDER BY mint");
  const incomeRows = sqlite.query("SELECT mint, action_id, usd FROM journal WHERE owner = ? AND treatment = 'income'");
  const unclassified = sqlite.query("SELECT count(*) AS n FROM actions WHERE owner = ? AND v1_entry IS NOT NULL AND json_extract(v1_entry, '$.kind') = 'unclassified_adjustment'");
  const yields = sqlite.query("SELECT payload FROM yields WHERE owner = ?");

  /** Journal income per mint: reversals carry negated amounts, so the plain sum is what stands. */
  const incomeByMint = (owner: string) => {
    const byMint = new Map<string, Rat>();
    const unvalued = new Map<string, number>(); // actionId -> standing entries without USD
    for (const r of incomeRows.all(owner) as { mint: string; action_id: string; usd: string | null }[]) {
      if (r.usd === null) { unvalued.set(r.action_id, (unvalued.get(r.action_id) ?? 0) + 1); continue; }
      byMint.set(r.mint, add(byMint.get(r.mint) ?? ZERO, parseDecimal(r.usd)));
    }
    // An unvalued recognition that was reversed appears twice (recognition + reversal): odd counts stand.
    const unvaluedEvents = [...unvalued.values()].filter((n) => n % 2 === 1).length;
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
