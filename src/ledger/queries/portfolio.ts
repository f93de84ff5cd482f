// Portfolio and yield: the engine's position and yield records for a wallet, with income totals
// summed from the journal itself (income is always the sum of the journal). Amounts are shown for
// people (src/domain/display.ts) with the exact values under `exact`; a total is the sum of the
// exact values, rounded once.
import { quantityForPeople, quantityTextForPeople, uiAmount, usdForPeople, usdTextForPeople } from "../../domain/display.ts";
import { add, cmp, formatExact, nearestF64, parseDecimal, sub, ZERO, type Rat } from "../../domain/numbers.ts";
import type { PositionRecord, YieldRecord } from "../../domain/types.ts";
import type { Sql } from "../sql/port.ts";

/**
 * A position as its holder reads it: the quantity exactly as the wallet shows it (the program's
 * rendering of the raw balance at the multiplier in force), principal rounded at the mint's
 * decimals and kept within the quantity, and the convertible income units the rest, so the parts
 * add up to what the wallet shows.
 */
export function positionShown(p: PositionRecord, incomeUsd: Rat) {
  const quantity = parseDecimal(uiAmount(BigInt(p.rawBalance), nearestF64(parseDecimal(p.multiplier)), p.decimals));
  let principal = parseDecimal(quantityForPeople(parseDecimal(p.principalQuantity), p.decimals));
  if (cmp(principal, quantity) > 0) principal = quantity;
  if (cmp(principal, ZERO) < 0) principal = ZERO;
  return {
    quantity: formatExact(quantity), principalQuantity: formatExact(principal), convertibleQuantity: formatExact(sub(quantity, principal)),
    incomeUsd: usdForPeople(incomeUsd),
    exact: { quantity: p.quantity, principalQuantity: p.principalQuantity, convertibleQuantity: p.convertibleQuantity, incomeUsd: formatExact(incomeUsd) },
  };
}

/** A yield window as people read it: USD and quantities rounded, ratios exact, the exact values kept. */
export function yieldShown(y: YieldRecord, decimals: number) {
  return {
    window: y.window, from: y.from, to: y.to, status: y.status, partialCode: y.partialCode, incomeUsd: usdTextForPeople(y.incomeUsd),
    incomeUnits: quantityTextForPeople(y.incomeUnits, decimals), averageQuantity: quantityTextForPeople(y.averageQuantity, decimals), shareYield: y.shareYield,
    annualisedShareYield: y.annualisedShareYield, distributionPerShareUsd: usdTextForPeople(y.distributionPerShareUsd),
    exact: { incomeUsd: y.incomeUsd, incomeUnits: y.incomeUnits, averageQuantity: y.averageQuantity, distributionPerShareUsd: y.distributionPerShareUsd },
  };
}

export function portfolioQueries(db: Sql) {
  const positions = (owner: string) => db.all<{ payload: string }>("SELECT payload FROM positions WHERE owner = ? ORDER BY mint", owner);

  /** Income per mint as the last replay summed it from the journal (see refreshIncomeTotals). */
  const incomeByMint = async (owner: string) => {
    const byMint = new Map<string, Rat>();
    let unvaluedEvents = 0;
    for (const r of await db.all<{ mint: string; usd: string; unvalued_events: number }>("SELECT mint, usd, unvalued_events FROM income_totals WHERE owner = ?", owner)) {
      byMint.set(r.mint, parseDecimal(r.usd));
      unvaluedEvents += r.unvalued_events;
    }
    return { byMint, unvaluedEvents };
  };

  return {
    async portfolio(owner: string) {
      const { byMint, unvaluedEvents } = await incomeByMint(owner);
      let total = ZERO;
      const list = (await positions(owner)).map((r) => {
        const p = JSON.parse(r.payload) as PositionRecord;
        const income = byMint.get(p.mint) ?? ZERO;
        total = add(total, income);
        const shown = positionShown(p, income);
        return {
          mint: p.mint, symbol: p.symbol, decimals: p.decimals, rawBalance: p.rawBalance, quantity: shown.quantity, multiplier: p.multiplier,
          principalQuantity: shown.principalQuantity, convertibleQuantity: shown.convertibleQuantity, incomeUsd: shown.incomeUsd,
          status: p.status, statusReason: p.statusReason, exact: shown.exact,
        };
      });
      for (const [mint, v] of byMint) if (!list.some((p) => p.mint === mint)) total = add(total, v);
      const unclassified = await db.get<{ n: number }>("SELECT count(*) AS n FROM actions WHERE owner = ? AND v1_kind = 'unclassified_adjustment'", owner);
      return {
        unclassifiedAdjustments: unclassified!.n,
        totals: { incomeUsd: usdForPeople(total), unvaluedIncomeEvents: unvaluedEvents, exact: { incomeUsd: formatExact(total) } },
        positions: list,
      };
    },
    async yield(owner: string) {
      const row = await db.get<{ payload: string }>("SELECT payload FROM yields WHERE owner = ?", owner);
      const records = row ? (JSON.parse(row.payload) as YieldRecord[]) : [];
      // Quantities are shown at each mint's decimals, which the position records carry.
      const decimals = new Map((await positions(owner)).map((r) => JSON.parse(r.payload) as PositionRecord).map((p) => [p.mint, p.decimals]));
      const byMint = new Map<string, { mint: string; symbol: string | null; windows: ReturnType<typeof yieldShown>[] }>();
      for (const y of records) {
        let p = byMint.get(y.mint);
        if (!p) byMint.set(y.mint, (p = { mint: y.mint, symbol: y.symbol, windows: [] }));
        p.windows.push(yieldShown(y, decimals.get(y.mint) ?? 8));
      }
      return { positions: [...byMint.values()] };
    },
  };
}
