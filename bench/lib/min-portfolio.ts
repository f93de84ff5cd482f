// The minimum work of GET /v1/portfolio, shared by bench/lib/min-server.ts (the minimum itself) and
// bench/lib/floor-server.ts (the same work under the layers a keyed route adds): whether some
// tenant follows the wallet, then its stored portfolio parsed and served after the request's own
// fields. The same statements as src/ledger/tables/tenant-wallets.ts and portfolios.ts.
import type { Database } from "bun:sqlite";

export const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "content-type": "application/json;charset=utf-8" } });

export function minimumPortfolio(db: Database) {
  const registered = db.query("SELECT 1 FROM tenant_wallets WHERE owner = ?");
  const portfolio = db.query("SELECT body FROM portfolios WHERE owner = ?");
  return {
    registered: (owner: string): boolean => registered.get(owner) !== null,
    answer(owner: string, dataset: unknown): Response {
      const row = portfolio.get(owner) as { body: string } | null;
      return json({ owner, dataset, asOf: new Date().toISOString(), ...JSON.parse(row?.body ?? "{}") });
    },
  };
}
