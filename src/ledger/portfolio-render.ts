// The stored portfolio, rendered when a wallet is booked: booking writes it in the transaction
// that writes the positions, income totals and actions it is made of, and verify renders it again
// to check what is stored. It lives on the write side so booking imports no read model; the
// route reads the stored text (queries/portfolio.ts). Amounts are shown for people
// (src/domain/display.ts) with the exact values under `exact`; a total is the sum of the exact
// values, rounded once. Rendering costs about 7 µs a position, too much to repeat per request.
import { quantityForPeople, uiAmount, usdForPeople } from "../domain/display.ts";
import { add, cmp, formatExact, nearestF64, parseDecimal, sub, ZERO, type Rat } from "../domain/numbers.ts";
import type { PositionRecord } from "../domain/types.ts";
import { groupBy } from "../domain/group.ts";
import type { Sql } from "./sql/port.ts";
import { actionSql } from "./tables/actions.ts";
import { incomeTotalSql, type IncomeTotalRow } from "./tables/income-totals.ts";
import { portfolioSql } from "./tables/portfolios.ts";
import { positionSql } from "./tables/positions.ts";

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
    quantity: formatExact(quantity),
    principalQuantity: formatExact(principal),
    convertibleQuantity: formatExact(sub(quantity, principal)),
    incomeUsd: usdForPeople(incomeUsd),
    exact: { quantity: p.quantity, principalQuantity: p.principalQuantity, convertibleQuantity: p.convertibleQuantity, incomeUsd: formatExact(incomeUsd) },
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
      mint: p.mint,
      symbol: p.symbol,
      decimals: p.decimals,
      rawBalance: p.rawBalance,
      quantity: shown.quantity,
      multiplier: p.multiplier,
      principalQuantity: shown.principalQuantity,
      convertibleQuantity: shown.convertibleQuantity,
      incomeUsd: shown.incomeUsd,
      status: p.status,
      statusReason: p.statusReason,
      exact: shown.exact,
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
