// Lots & gains (docs/lots.md): a year's realized gains, short and long term, across the tenant's
// wallets, and each wallet's open lots at the end of that year (or today, for this year), under
// the treatment and the lot method chosen in the URL (#/lots?year=2026&method=hifo&treatment=deferred;
// by default the server's). Units whose cost the ledger does not know are called out with how
// to declare them. Every figure is the server's, to the cent; the exact value one hover away.
import type { GainsReport, LotMethod, LotsResponse, TaxTreatment } from "@ca-ledger/client";
import { schemas } from "@ca-ledger/client";
import { useLedger, walletsOf, type Ledger } from "../src/context.ts";
import { dateText, shortAddress, words } from "../src/format.ts";
import { useLoad } from "../src/load.ts";
import { href, useRoute } from "../src/route.ts";
import { Quantity, Usd } from "./amounts.tsx";
import { NoWallets } from "./Holdings.tsx";
import { Await, Empty } from "./states.tsx";

interface LotChoice {
  year: number;
  method: LotMethod | null;
  treatment: TaxTreatment | null;
}

const methods = schemas.lotMethods;
const treatments = schemas.taxTreatments;

function chosen(query: URLSearchParams): LotChoice {
  const asked = Number(query.get("year"));
  const year = Number.isInteger(asked) && asked >= 1970 && asked <= 9999 ? asked : new Date().getUTCFullYear();
  const method = (methods as readonly string[]).includes(query.get("method") ?? "") ? (query.get("method") as LotMethod) : null;
  const treatment = (treatments as readonly string[]).includes(query.get("treatment") ?? "") ? (query.get("treatment") as TaxTreatment) : null;
  return { year, method, treatment };
}

/** The lots are shown at the end of the chosen year, or today while it runs. */
function asOfOf(year: number): string {
  const today = new Date().toISOString().slice(0, 10);
  return year >= new Date().getUTCFullYear() ? today : `${year}-12-31`;
}

async function load(ledger: Ledger, c: LotChoice) {
  const { wallets } = await walletsOf(ledger);
  const options = { ...(c.method ? { method: c.method } : {}), ...(c.treatment ? { treatment: c.treatment } : {}) };
  const asOf = asOfOf(c.year);
  const [gains, lots] = await Promise.all([ledger.api.v2.gainsReport(c.year, options), Promise.all(wallets.map((w) => ledger.api.v2.lots(w.owner, { ...options, asOf })))]);
  return { gains, lots, owners: wallets.map((w) => w.owner) };
}

const selected = (e: Event) => (e.target as HTMLSelectElement).value;

export function Lots() {
  const ledger = useLedger();
  const route = useRoute();
  const choice = chosen(route.query);
  const loaded = useLoad(`lots:${choice.year}:${choice.method}:${choice.treatment}`, () => load(ledger, choice));
  const move = (change: Partial<LotChoice>) => {
    const next = { ...choice, ...change };
    location.hash = href("lots", null, { year: next.year, method: next.method, treatment: next.treatment });
  };
  const thisYear = new Date().getUTCFullYear();
  const years = [...new Set([thisYear, thisYear - 1, thisYear - 2, choice.year])].sort((a, b) => b - a);
  return (
    <section>
      <h1>Lots &amp; gains</h1>
      <Await loaded={loaded} what="lots and gains">
        {({ gains, lots, owners }) =>
          owners.length === 0 ? (
            <NoWallets />
          ) : (
            <>
              <div class="row pickers">
                <label class="inline">
                  Year{" "}
                  <select id="lots-year" value={String(choice.year)} onChange={(e) => move({ year: Number(selected(e)) })}>
                    {years.map((y) => (
                      <option key={y} value={String(y)}>
                        {y}
                      </option>
                    ))}
                  </select>
                </label>
                <label class="inline" title="The reading of a reinvested dividend: income when the multiplier rises, or deferred to the sale">
                  Treatment{" "}
                  <select id="lots-treatment" value={gains.treatment} onChange={(e) => move({ treatment: selected(e) as TaxTreatment })}>
                    {treatments.map((t) => (
                      <option key={t} value={t}>
                        {t}
                      </option>
                    ))}
                  </select>
                </label>
                <label class="inline" title="Which lot a sale takes first">
                  Method{" "}
                  <select id="lots-method" value={gains.method} onChange={(e) => move({ method: selected(e) as LotMethod })}>
                    {methods.map((m) => (
                      <option key={m} value={m}>
                        {m}
                      </option>
                    ))}
                  </select>
                </label>
              </div>
              <Gains report={gains} />
              <h2>Open lots at the end of {asOfOf(choice.year)}</h2>
              <UnknownBasis lots={lots} />
              {lots.map((l) => (
                <WalletLots key={l.owner} lots={l} />
              ))}
            </>
          )
        }
      </Await>
    </section>
  );
}

const TERMS = [
  ["short", "Short term"],
  ["long", "Long term"],
] as const;

function Gains({ report }: { report: GainsReport }) {
  return (
    <>
      <h2>
        Realized in {report.year}{" "}
        <span class="muted small">
          ({report.treatment}, {report.method})
        </span>
      </h2>
      <div class="cards" id="gains-totals">
        {TERMS.map(([term, label]) => {
          const t = report.totals[term];
          return (
            <div key={term} class="card" data-term={term}>
              <div class="card-label">{label}: gain or loss</div>
              <div class="card-value" data-figure="gainUsd">
                <Usd exact={t.exact.gainUsd} />
              </div>
              <div class="muted small">
                proceeds{" "}
                <span data-figure="proceedsUsd">
                  <Usd exact={t.exact.proceedsUsd} />
                </span>
                , basis{" "}
                <span data-figure="basisUsd">
                  <Usd exact={t.exact.basisUsd} />
                </span>
                ; {t.rows} row(s){t.unknownRows ? `, ${t.unknownRows} with an unknown value (not in the sums)` : ""}
              </div>
            </div>
          );
        })}
      </div>
      {report.rows.length === 0 ? (
        <Empty title={`Nothing sold in ${report.year}.`}>Gains appear once a wallet sells or otherwise disposes of units.</Empty>
      ) : (
        <table class="data" id="gains">
          <thead>
            <tr>
              <th>Wallet</th>
              <th>Symbol</th>
              <th class="r">Units</th>
              <th>Acquired</th>
              <th>Disposed</th>
              <th class="r">Proceeds</th>
              <th class="r">Basis</th>
              <th class="r">Gain</th>
              <th>Term</th>
            </tr>
          </thead>
          <tbody>
            {report.rows.map((r, i) => (
              <tr key={i}>
                <td>
                  <code>{shortAddress(r.owner)}</code>
                </td>
                <td>{r.symbol ?? shortAddress(r.mint)}</td>
                <td class="r">
                  <Quantity value={r.units} exact={r.exact.units} />
                </td>
                <td class="nowrap">{r.acquiredAt ? dateText(r.acquiredAt) : "—"}</td>
                <td class="nowrap">{dateText(r.disposedAt)}</td>
                <td class="r">
                  <Usd exact={r.exact.proceedsUsd} why={r.reason ? words(r.reason) : undefined} />
                </td>
                <td class="r">
                  <Usd exact={r.exact.basisUsd} why={r.reason ? words(r.reason) : undefined} />
                </td>
                <td class="r">
                  <Usd exact={r.exact.gainUsd} why={r.reason ? words(r.reason) : undefined} />
                </td>
                <td>{r.term}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** Units of unknown cost, across wallets, and how the operator declares what the chain does not show. */
function UnknownBasis({ lots }: { lots: LotsResponse[] }) {
  const unknown = lots.flatMap((l) => l.instruments.filter((i) => i.exact.unknownBasisUnits !== "0").map((i) => ({ owner: l.owner, i })));
  if (unknown.length === 0) return null;
  return (
    <div class="note" id="unknown-basis">
      <p>
        Some units have no known cost basis (a transfer in, a swap paid in SOL, a purchase on an exchange):{" "}
        {unknown.map(({ owner, i }) => `${i.unknownBasisUnits} ${i.symbol ?? shortAddress(i.mint)} in ${shortAddress(owner)}`).join("; ")}. Their gains are unknown, never counted as 0.
      </p>
      <p>
        An operator declares what the chain cannot show with <code>ca-ledger import cost-basis &lt;file&gt;</code>, a CSV of <code>owner,signature,costUsd</code> (the cost of the acquisition in that
        transaction) or <code>owner,mint,acquiredAt,units,costUsd</code> (units bought elsewhere); the lots use it from the next read.
      </p>
    </div>
  );
}

function WalletLots({ lots }: { lots: LotsResponse }) {
  if (lots.lots.length === 0) return null;
  return (
    <>
      <h3>
        <code>{lots.owner}</code>
      </h3>
      <table class="data lots" data-owner={lots.owner}>
        <thead>
          <tr>
            <th>Symbol</th>
            <th class="r">Units</th>
            <th class="r">Basis</th>
            <th>Acquired</th>
            <th>Source</th>
          </tr>
        </thead>
        <tbody>
          {lots.lots.map((l) => (
            <tr key={l.id}>
              <td>{l.symbol ?? shortAddress(l.mint)}</td>
              <td class="r">
                <Quantity value={l.units} exact={l.exact.units} />
              </td>
              <td class="r">
                <Usd exact={l.exact.basisUsd} why={l.reason ? `Unknown: ${words(l.reason)}` : undefined} />
              </td>
              <td class="nowrap">{dateText(l.acquiredAt)}</td>
              <td>{words(l.source)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
