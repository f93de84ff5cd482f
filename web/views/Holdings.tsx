// Positions and net income per wallet, and across the tenant's wallets. Across wallets, a
// quantity is the sum of what each wallet shows (the token program's rendering, added exactly, as
// a person adds them), and income the sum of the exact values rounded once by the ledger's rule.
// Each instrument says where its name came from when it is not the issuer's feed.
import type { ComponentChildren } from "preact";
import type { AssetsResponse, Portfolio } from "@ca-ledger/client";
import { cached } from "../src/api.ts";
import { useLedger, walletsOf, type Ledger } from "../src/context.ts";
import { factorText, shortAddress, sumDecimals, words } from "../src/format.ts";
import { useLoad } from "../src/load.ts";
import { href } from "../src/route.ts";
import { Quantity, Usd } from "./amounts.tsx";
import { Pending } from "./Pending.tsx";
import { Await, Empty } from "./states.tsx";

type Position = Portfolio["positions"][number];

export const portfolioOf = (ledger: Ledger, owner: string): Promise<Portfolio> => cached(ledger.cache, `portfolio:${owner}`, () => ledger.api.portfolio(owner));

type Asset = AssetsResponse["assets"][number];

/** Every instrument the ledger knows (Holdings and Lineage share the read). */
export const assetsOf = (ledger: Ledger): Promise<AssetsResponse> => cached(ledger.cache, "assets", () => ledger.api.assets());

async function loadAll(ledger: Ledger) {
  const { wallets } = await walletsOf(ledger);
  const [portfolios, { assets }] = await Promise.all([Promise.all(wallets.map((w) => portfolioOf(ledger, w.owner))), assetsOf(ledger)]);
  return { portfolios, assets: new Map(assets.map((a) => [a.mint, a])) };
}

/** One row per mint across wallets: the shown quantities added, the exact income summed. */
function combined(portfolios: Portfolio[]) {
  const byMint = new Map<string, Position[]>();
  for (const p of portfolios) for (const pos of p.positions) byMint.set(pos.mint, [...(byMint.get(pos.mint) ?? []), pos]);
  return [...byMint.values()]
    .map((list) => ({
      first: list[0]!,
      wallets: list.length,
      quantity: sumDecimals(list.map((p) => p.quantity)).value ?? "0",
      incomeUsd: sumDecimals(list.map((p) => p.exact.incomeUsd)).value ?? "0",
    }))
    .sort((a, b) => (a.first.symbol ?? a.first.mint).localeCompare(b.first.symbol ?? b.first.mint));
}

export function Holdings() {
  const ledger = useLedger();
  const loaded = useLoad("holdings", () => loadAll(ledger));
  return (
    <section>
      <h1>Holdings</h1>
      <Pending />
      <Await loaded={loaded} what="holdings">
        {({ portfolios, assets }) => (portfolios.length === 0 ? <NoWallets /> : <HoldingsOf portfolios={portfolios} assets={assets} />)}
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

/** The instrument's symbol, linked to its lineage, marked when its name came from the mint's own metadata. */
function Instrument({ mint, symbol, asset }: { mint: string; symbol: string | null; asset: Asset | undefined }) {
  return (
    <>
      <a href={href("lineage", mint)}>{symbol ?? shortAddress(mint)}</a>
      {asset?.source === "token-metadata" && (
        <span class="badge src-token-metadata" title={`Named from the mint's own Token-2022 metadata${asset.uri ? ` (${asset.uri})` : ""}: no issuer feed lists it`}>
          token metadata
        </span>
      )}
    </>
  );
}

function HoldingsOf({ portfolios, assets }: { portfolios: Portfolio[]; assets: Map<string, Asset> }) {
  const income = sumDecimals(portfolios.map((p) => p.totals.exact.incomeUsd));
  const unvalued = portfolios.reduce((n, p) => n + p.totals.unvaluedIncomeEvents, 0);
  const rows = combined(portfolios);
  return (
    <>
      <div class="cards">
        <Card label="Income received, all wallets" value={<Usd exact={income.value} />} />
        <Card label="Income events without a USD value" value={String(unvalued)} />
        <Card label="Wallets" value={String(portfolios.length)} />
        <Card label="Instruments held" value={String(rows.length)} />
      </div>
      <h2>Across all wallets</h2>
      {rows.length === 0 ? (
        <Empty title="No positions in any wallet." />
      ) : (
        <table class="data" id="holdings-combined">
          <thead>
            <tr>
              <th>Instrument</th>
              <th class="r">Quantity</th>
              <th class="r">Wallets</th>
              <th class="r" title={netTitle}>
                Net income received
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.first.mint}>
                <td>
                  <Instrument mint={r.first.mint} symbol={r.first.symbol} asset={assets.get(r.first.mint)} />
                </td>
                <td class="r">
                  <Quantity value={r.quantity} />
                </td>
                <td class="r">{r.wallets}</td>
                <td class="r">
                  <Usd exact={r.incomeUsd} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="muted small">
        Income is net: after withholding tax and what the issuer retained. Gross and withheld, by month: <a href={href("income")}>Income</a>.
      </p>
      {portfolios.map((p) => (
        <WalletHoldings key={p.owner} portfolio={p} assets={assets} />
      ))}
    </>
  );
}

const netTitle = "Net USD: what the issuer reinvested after withholding tax and retention";

function Card({ label, value }: { label: string; value: ComponentChildren }) {
  return (
    <div class="card">
      <div class="card-label">{label}</div>
      <div class="card-value">{value}</div>
    </div>
  );
}

function WalletHoldings({ portfolio, assets }: { portfolio: Portfolio; assets: Map<string, Asset> }) {
  return (
    <div class="wallet-block">
      <h2>
        Wallet <code title={portfolio.owner}>{shortAddress(portfolio.owner)}</code>
        <span class="sub">
          net income <Usd value={portfolio.totals.incomeUsd} exact={portfolio.totals.exact.incomeUsd} />
          {portfolio.totals.unvaluedIncomeEvents > 0 && `, ${portfolio.totals.unvaluedIncomeEvents} without USD`}
        </span>
      </h2>
      {portfolio.positions.length === 0 ? (
        <Empty title="No positions in this wallet." />
      ) : (
        <table class="data wallet-positions">
          <thead>
            <tr>
              <th>Instrument</th>
              <th class="r">Quantity</th>
              <th class="r">Multiplier</th>
              <th class="r">Principal</th>
              <th class="r" title={netTitle}>
                Net income received
              </th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {portfolio.positions.map((pos) => (
              <tr key={pos.mint}>
                <td>
                  <Instrument mint={pos.mint} symbol={pos.symbol} asset={assets.get(pos.mint)} />
                </td>
                <td class="r">
                  <Quantity value={pos.quantity} exact={pos.exact.quantity} />
                </td>
                <td class="r num" title={pos.multiplier}>
                  {factorText(pos.multiplier)}
                </td>
                <td class="r">
                  <Quantity value={pos.principalQuantity} exact={pos.exact.principalQuantity} />
                </td>
                <td class="r">
                  <Usd value={pos.incomeUsd} exact={pos.exact.incomeUsd} />
                </td>
                <td>
                  <span class={`badge ${pos.status}`} title={pos.statusReason ?? ""}>
                    {words(pos.status)}
                  </span>
                </td>
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
