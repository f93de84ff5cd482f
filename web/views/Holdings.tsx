// Positions and income totals per wallet, and across the tenant's wallets.
import type { ComponentChildren } from "preact";
import type { Portfolio } from "@ca-ledger/client";
import { cached } from "../src/api.ts";
import { useLedger, walletsOf, type Ledger } from "../src/context.ts";
import { factorText, shortAddress, sumDecimals, words } from "../src/format.ts";
import { useLoad } from "../src/load.ts";
import { href } from "../src/route.ts";
import { Quantity, Usd } from "./amounts.tsx";
import { Await, Empty } from "./states.tsx";

type Position = Portfolio["positions"][number];

export const portfolioOf = (ledger: Ledger, owner: string): Promise<Portfolio> => cached(ledger.cache, `portfolio:${owner}`, () => ledger.api.portfolio(owner));

async function loadAll(ledger: Ledger): Promise<Portfolio[]> {
  const { wallets } = await walletsOf(ledger);
  return Promise.all(wallets.map((w) => portfolioOf(ledger, w.owner)));
}

/** One row per mint across wallets: quantities and income summed exactly. */
function combined(portfolios: Portfolio[]) {
  const byMint = new Map<string, Position[]>();
  for (const p of portfolios) for (const pos of p.positions) byMint.set(pos.mint, [...(byMint.get(pos.mint) ?? []), pos]);
  return [...byMint.values()]
    .map((list) => ({
      first: list[0]!,
      wallets: list.length,
      quantity: sumDecimals(list.map((p) => p.quantity)).value ?? "0",
      incomeUsd: sumDecimals(list.map((p) => p.incomeUsd)).value ?? "0",
    }))
    .sort((a, b) => (a.first.symbol ?? a.first.mint).localeCompare(b.first.symbol ?? b.first.mint));
}

export function Holdings() {
  const ledger = useLedger();
  const loaded = useLoad("holdings", () => loadAll(ledger));
  return (
    <section>
      <h1>Holdings</h1>
      <Await loaded={loaded} what="holdings">
        {(portfolios) => (portfolios.length === 0 ? <NoWallets /> : <HoldingsOf portfolios={portfolios} />)}
      </Await>
    </section>
  );
}

export function NoWallets() {
  return (
    <Empty title="No wallets yet.">
      Register a wallet under <a href={href("wallets")}>Wallets</a>; its positions and income appear here once its first sync completes.
    </Empty>
  );
}

function HoldingsOf({ portfolios }: { portfolios: Portfolio[] }) {
  const income = sumDecimals(portfolios.map((p) => p.totals.incomeUsd));
  const unvalued = portfolios.reduce((n, p) => n + p.totals.unvaluedIncomeEvents, 0);
  const rows = combined(portfolios);
  return (
    <>
      <div class="cards">
        <Card label="Income received, all wallets" value={<Usd value={income.value} />} />
        <Card label="Income events without a USD value" value={String(unvalued)} />
        <Card label="Wallets" value={String(portfolios.length)} />
        <Card label="Instruments held" value={String(rows.length)} />
      </div>
      <h2>Across all wallets</h2>
      {rows.length === 0 ? (
        <Empty title="No positions in any wallet." />
      ) : (
        <table class="data" id="holdings-combined">
          <thead><tr><th>Instrument</th><th class="r">Quantity</th><th class="r">Wallets</th><th class="r">Income received</th></tr></thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.first.mint}>
                <td><a href={href("lineage", r.first.mint)}>{r.first.symbol ?? shortAddress(r.first.mint)}</a></td>
                <td class="r"><Quantity value={r.quantity} decimals={r.first.decimals} /></td>
                <td class="r">{r.wallets}</td>
                <td class="r"><Usd value={r.incomeUsd} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {portfolios.map((p) => <WalletHoldings key={p.owner} portfolio={p} />)}
    </>
  );
}

function Card({ label, value }: { label: string; value: ComponentChildren }) {
  return (
    <div class="card">
      <div class="card-label">{label}</div>
      <div class="card-value">{value}</div>
    </div>
  );
}

function WalletHoldings({ portfolio }: { portfolio: Portfolio }) {
  return (
    <div class="wallet-block">
      <h2>
        Wallet <code title={portfolio.owner}>{shortAddress(portfolio.owner)}</code>
        <span class="sub">income <Usd value={portfolio.totals.incomeUsd} />{portfolio.totals.unvaluedIncomeEvents > 0 && `, ${portfolio.totals.unvaluedIncomeEvents} without USD`}</span>
      </h2>
      {portfolio.positions.length === 0 ? (
        <Empty title="No positions in this wallet." />
      ) : (
        <table class="data wallet-positions">
          <thead><tr><th>Instrument</th><th class="r">Quantity</th><th class="r">Multiplier</th><th class="r">Principal</th><th class="r">Income received</th><th>Status</th></tr></thead>
          <tbody>
            {portfolio.positions.map((pos) => (
              <tr key={pos.mint}>
                <td><a href={href("lineage", pos.mint)}>{pos.symbol ?? shortAddress(pos.mint)}</a></td>
                <td class="r"><Quantity value={pos.quantity} decimals={pos.decimals} /></td>
                <td class="r num" title={pos.multiplier}>{factorText(pos.multiplier)}</td>
                <td class="r"><Quantity value={pos.principalQuantity} decimals={pos.decimals} /></td>
                <td class="r"><Usd value={pos.incomeUsd} /></td>
                <td><span class={`badge ${pos.status}`} title={pos.statusReason ?? ""}>{words(pos.status)}</span></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="links">
        <a href={href("actions", null, { owner: portfolio.owner })}>Actions of this wallet</a>
      </p>
    </div>
  );
}
