// Portfolio and yield: the engine's position and yield records for a wallet, with income totals
// summed from the journal itself (income is always the sum of the journal). Amounts are shown for
// people (src/domain/display.ts) with the exact values under `exact`; a total is the sum of the
// exact values, rounded once. The portfolio is rendered when a wallet is booked and stored as the
// text the route serves (renderPortfolios, table `portfolios`): its figures change only then, and
// rendering costs about 7 µs a position, too much to repeat on every request.
import { quantityForPeople, quantityTextForPeople, uiAmount, usdForPeople, usdTextForPeople } from "../../domain/display.ts";
import { add, cmp, formatExact, nearestF64, parseDecimal, sub, ZERO, type Rat } from "../../domain/numbers.ts";
import type { PositionRecord, YieldRecord } from "../../domain/types.ts";
import { groupBy } from "../group.ts";
import type { Sql } from "../sql/port.ts";
import { actionSql } from "../tables/actions.ts";
import { incomeTotalSql, type IncomeTotalRow } from "../tables/income-totals.ts";
import { portfolioSql } from "../tables/portfolios.ts";
import { positionSql } from "../tables/positions.ts";
import { yieldSql } from "../tables/yields.ts";

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

/** One wallet's portfolio from its stored rows: positions (by mint), income totals, unclassified count. */
function portfolioShown(positions: PositionRecord[], income: Omit<IncomeTotalRow, "updated_at">[], unclassifiedAdjustments: number) {
  const byMint = new Map(income.map((r) => [r.mint, parseDecimal(r.usd)]));
  let total = ZERO;
  const list = positions.map((p) => {
    const usd = byMint.get(p.mint) ?? ZERO;
    total = add(total, usd);
    const shown = positionShown(p, usd);
    return {
      mint: p.mint, symbol: p.symbol, decimals: p.decimals, rawBalance: p.rawBalance, quantity: shown.quantity, multiplier: p.multiplier,
      principalQuantity: shown.principalQuantity, convertibleQuantity: shown.convertibleQuantity, incomeUsd: shown.incomeUsd,
      status: p.status, statusReason: p.statusReason, exact: shown.exact,
    };
  });
  // Income of a mint no longer held still counts in the wallet's total.
  for (const [mint, usd] of byMint) if (!list.some((p) => p.mint === mint)) total = add(total, usd);
  const unvaluedEvents = income.reduce((n, r) => n + r.unvalued_events, 0);
  return {
    unclassifiedAdjustments,
    totals: { incomeUsd: usdForPeople(total), unvaluedIncomeEvents: unvaluedEvents, exact: { incomeUsd: formatExact(total) } },
    positions: list,
  };
}

/**
 * The portfolio of each wallet as the route serves it after owner, dataset and asOf, as JSON text,
 * rendered from the stored positions, income totals and actions (three reads for any number of
 * wallets). Booking stores it in the transaction that writes those rows; `verify` renders it
 * again to check what is stored.
 */
export async function renderPortfolios(db: Sql, owners: string[]): Promise<Map<string, string>> {
  const positions = groupBy(await db.all(positionSql.ofOwners, { owners }), (r) => r.owner);
  const income = groupBy(await db.all(incomeTotalSql.ofOwners, { owners }), (r) => r.owner);
  const unclassified = new Map((await db.all(actionSql.unclassifiedOfOwners, { owners })).map((r) => [r.owner, r.n]));
  const rendered = new Map<string, string>();
  for (const owner of owners) {
    const records = (positions.get(owner) ?? []).map((r) => JSON.parse(r.payload) as PositionRecord);
    rendered.set(owner, JSON.stringify(portfolioShown(records, income.get(owner) ?? [], unclassified.get(owner) ?? 0)));
  }
  return rendered;
}

/** Renders the wallets' portfolios and stores them (inside booking's transaction). */
export async function storePortfolios(tx: Sql, owners: string[], at: string): Promise<void> {
  for (const [owner, body] of await renderPortfolios(tx, owners)) await tx.run(portfolioSql.upsert, { owner, body, at });
}

export function portfolioQueries(db: Sql) {
  return {
    /**
     * The stored portfolio as JSON text. A wallet not booked since the portfolio was first stored
     * (a ledger from before migration 0012, until its wallets are booked again) is rendered now.
     */
    async portfolio(owner: string): Promise<string> {
      const row = await db.get(portfolioSql.ofOwner, { owner });
      return row ? row.body : (await renderPortfolios(db, [owner])).get(owner)!;
    },
    async yield(owner: string) {
      const row = await db.get(yieldSql.ofOwner, { owner });
      const records = row ? (JSON.parse(row.payload) as YieldRecord[]) : [];
      // Quantities are shown at each mint's decimals, which the position records carry.
      const decimals = new Map((await db.all(positionSql.ofOwner, { owner })).map((r) => JSON.parse(r.payload) as PositionRecord).map((p) => [p.mint, p.decimals]));
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
