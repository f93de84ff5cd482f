// The stored portfolio, rendered when a wallet is booked from the engine's positions, the journal's
// income and the actions, in the transaction that writes them; verify renders it again to check
// what is stored. It lives on the write side so booking imports no read model; the
// route reads the stored text (queries/portfolio.ts). Amounts are shown for people
// (src/domain/display.ts) with the exact values under `exact`; a total is the sum of the exact
// values, rounded once. Rendering costs about 7 µs a position, too much to repeat per request.
import { quantityForPeople, uiAmount, usdForPeople } from "../domain/display.ts";
import { add, cmp, formatExact, nearestF64, parseDecimal, sub, ZERO, type Rat } from "../domain/numbers.ts";
import type { PositionRecord } from "../domain/types.ts";
import type { Sql } from "./sql/port.ts";
import { actionSql } from "./tables/actions.ts";
import { journalSql } from "./tables/journal.ts";
import { portfolioSql } from "./tables/portfolios.ts";

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

/** A wallet's income from one mint, summed from its journal, and its standing recognitions without USD. */
export interface IncomeTotal {
  mint: string;
  usd: Rat;
  unvalued: number;
}

/** One wallet's portfolio: its positions (in mint order), income per mint, unclassified count. */
function portfolioShown(positions: PositionRecord[], income: IncomeTotal[], unclassifiedAdjustments: number) {
  const byMint = new Map(income.map((r) => [r.mint, r.usd]));
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
  const unvaluedEvents = income.reduce((n, r) => n + r.unvalued, 0);
  return {
    unclassifiedAdjustments,
    totals: { incomeUsd: usdForPeople(total), unvaluedIncomeEvents: unvaluedEvents, exact: { incomeUsd: formatExact(total) } },
    positions: list,
  };
}

/**
 * Each wallet's income per mint, summed from its journal (every mint it ever had income from): two
 * reads for any number of wallets, as booking renders a chunk of them at once.
 */
async function incomeOfOwners(db: Sql, owners: string[]): Promise<Map<string, IncomeTotal[]>> {
  const usd = new Map<string, Map<string, Rat>>(owners.map((o) => [o, new Map()]));
  for (const r of await db.all(journalSql.incomeOfOwners, { owners })) {
    const ofOwner = usd.get(r.owner)!;
    const sum = ofOwner.get(r.mint) ?? ZERO;
    ofOwner.set(r.mint, r.usd === null ? sum : add(sum, parseDecimal(r.usd)));
  }
  const open = new Map((await db.all(journalSql.unvaluedOfOwners, { owners })).map((r) => [`${r.owner} ${r.mint}`, r.n]));
  return new Map([...usd].map(([owner, byMint]) => [owner, [...byMint].map(([mint, total]) => ({ mint, usd: total, unvalued: open.get(`${owner} ${mint}`) ?? 0 }))]));
}

/** Text order of mints, as the stored positions were read back in (SQLite's and PostgreSQL's "C" order of ASCII). */
const inMintOrder = (a: PositionRecord, b: PositionRecord) => (a.mint < b.mint ? -1 : a.mint > b.mint ? 1 : 0);

/**
 * The portfolio of each wallet as the route serves it after owner, dataset and asOf, as JSON text,
 * rendered from the wallet's positions as the engine derived them, its income summed from the
 * journal and its unclassified actions. Booking stores it in the transaction that writes the
 * journal and actions it reads; `verify` renders it again from the engine's positions to check
 * what is stored. The positions are not stored apart: the portfolio holds them
 * (docs/storage.md#the-portfolio-holds-the-positions).
 */
export async function renderPortfolios(db: Sql, positions: ReadonlyMap<string, readonly PositionRecord[]>): Promise<Map<string, string>> {
  const owners = [...positions.keys()];
  const unclassified = new Map((await db.all(actionSql.unclassifiedOfOwners, { owners })).map((r) => [r.owner, r.n]));
  const income = await incomeOfOwners(db, owners);
  const rendered = new Map<string, string>();
  for (const [owner, records] of positions) {
    rendered.set(owner, JSON.stringify(portfolioShown([...records].sort(inMintOrder), income.get(owner)!, unclassified.get(owner) ?? 0)));
  }
  return rendered;
}

/** These wallets' positions among the engine's (a wallet with none has an empty list). */
export function positionsOf(owners: Iterable<string>, derived: readonly PositionRecord[]): Map<string, PositionRecord[]> {
  const held = new Map<string, PositionRecord[]>();
  for (const owner of owners) held.set(owner, []);
  for (const p of derived) held.get(p.owner)?.push(p);
  return held;
}

/** Renders the wallets' portfolios and stores them (inside booking's transaction). */
export async function storePortfolios(tx: Sql, positions: ReadonlyMap<string, readonly PositionRecord[]>, at: string): Promise<void> {
  for (const [owner, body] of await renderPortfolios(tx, positions)) await tx.run(portfolioSql.upsert, { owner, body, at });
}
