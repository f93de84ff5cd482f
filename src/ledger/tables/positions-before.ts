// The positions of before the portfolio held them: stored apart until SQLite's migration 0022 and
// PostgreSQL's 0011 dropped them. The data step of the migration before each (upgrades.ts) reads
// them once, for the wallets that have no stored portfolio yet. They exist only until then.
import { query, sql, statements } from "../sql/statement.ts";

export const positionsBeforeSql = statements("positions_before", {
  /** The positions of each wallet with no stored portfolio, in (owner, mint) order. */
  withoutPortfolio: query<Record<never, never>, { owner: string; payload: string }>(
    () => sql`SELECT p.owner, p.payload FROM positions p WHERE NOT EXISTS (SELECT 1 FROM portfolios f WHERE f.owner = p.owner) ORDER BY p.owner, p.mint`,
  ),
});
