// Portfolio and yield as the routes serve them. The portfolio is the stored text booking rendered
// (../portfolio-render.ts, table `portfolios`): its figures change only when a wallet is booked.
// Yield windows are the engine's records shown for people (src/domain/display.ts), the exact
// values kept under `exact`.
import { quantityTextForPeople, usdTextForPeople } from "../../domain/display.ts";
import type { PositionRecord, YieldRecord } from "../../domain/types.ts";
import { renderPortfolios } from "../portfolio-render.ts";
import type { Sql } from "../sql/port.ts";
import { portfolioSql } from "../tables/portfolios.ts";
import { booksVisible } from "../tables/tenant-wallets.ts";
import { NO_BOOKS } from "./common.ts";
import { yieldSql } from "../tables/yields.ts";
import { decodeYields } from "../yields-payload.ts";

/** A yield window as people read it: USD and quantities rounded, ratios exact, the exact values kept. */
export function yieldShown(y: YieldRecord, decimals: number) {
  return {
    window: y.window,
    from: y.from,
    to: y.to,
    status: y.status,
    partialCode: y.partialCode,
    incomeUsd: usdTextForPeople(y.incomeUsd),
    incomeUnits: quantityTextForPeople(y.incomeUnits, decimals),
    averageQuantity: quantityTextForPeople(y.averageQuantity, decimals),
    shareYield: y.shareYield,
    annualisedShareYield: y.annualisedShareYield,
    distributionPerShareUsd: usdTextForPeople(y.distributionPerShareUsd),
    exact: { incomeUsd: y.incomeUsd, incomeUnits: y.incomeUnits, averageQuantity: y.averageQuantity, distributionPerShareUsd: y.distributionPerShareUsd },
  };
}

export function portfolioQueries(db: Sql) {
  /**
   * The stored portfolio as JSON text. Booking stores one for every wallet it books, and the
   * upgrade one for every wallet that had positions (migration 0021): a wallet with none was never
   * booked, holds nothing and has no income, and is rendered so now.
   */
  const portfolio = async (owner: string, on: Sql = db): Promise<string> => {
    const row = await on.get(portfolioSql.ofOwner, { owner });
    return row ? row.body : unbooked(owner, on);
  };
  /** The portfolio of a wallet never booked: it holds nothing and has no income. */
  const unbooked = async (owner: string, on: Sql): Promise<string> => (await renderPortfolios(on, new Map([[owner, []]]))).get(owner)!;
  return {
    portfolio,
    /**
     * The portfolio of a wallet the tenant follows, as the tenant may see it (empty until its own
     * first sync of the wallet finished), or null when the tenant does not follow the wallet.
     * One statement for the registration and the stored text: the cheapest keyed route's reads.
     */
    async ofRegistered(tenantId: number, owner: string, on: Sql = db): Promise<string | null> {
      const row = await on.get(portfolioSql.ofRegistered, { tenantId, owner });
      if (!row) return null;
      if (!booksVisible(row)) return unbooked(NO_BOOKS, on);
      return row.body ?? unbooked(owner, on);
    },
    async yield(owner: string) {
      const row = await db.get(yieldSql.ofOwner, { owner });
      const records = row ? decodeYields(owner, row.payload) : [];
      // Quantities are shown at each mint's decimals, which the portfolio's positions carry.
      const held = (JSON.parse(await portfolio(owner)) as { positions: Pick<PositionRecord, "mint" | "decimals">[] }).positions;
      const decimals = new Map(held.map((p) => [p.mint, p.decimals]));
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
