// The year report both the Income and the Downloads views show: the server's report for the
// year, wallets and currency chosen in the URL (#/income?year=2026&owner=…&currency=EUR; by
// default the latest year with entries, every wallet, USD only), and the pickers that move the URL.
// The currency picker offers USD and exactly the currencies whose ECB rates were imported, plus
// one named in the URL; with none imported, it says how to import them.
import type { ComponentChildren } from "preact";
import { cached } from "../src/api.ts";
import { useLedger, walletsOf, type Ledger } from "../src/context.ts";
import { shortAddress } from "../src/format.ts";
import { entryYears, listedCurrencies, loadReport, ratesEndBefore, reportKey, type IncomeReport, type ListedCurrency, type ReportChoice } from "../src/income-report.ts";
import { useLoad } from "../src/load.ts";
import { href, useRoute } from "../src/route.ts";
import { NoWallets } from "./Holdings.tsx";
import { Await } from "./states.tsx";

/** The wallets, the years they have entries in, and the currencies the imported rates convert into. */
async function reportChoices(ledger: Ledger) {
  const [{ wallets }, currencies] = await Promise.all([walletsOf(ledger), listedCurrencies(ledger.api)]);
  const owners = wallets.map((w) => w.owner);
  const perWallet = await Promise.all(owners.map((o) => cached(ledger.cache, `years:${o}`, () => entryYears(ledger.api, o))));
  return { owners, years: [...new Set(perWallet.flat())].sort((a, b) => b - a), currencies };
}

/** The choice in the URL, else the latest year with entries (else this year), every wallet, USD only. */
function chosen(query: URLSearchParams, owners: string[], years: number[]): ReportChoice {
  const asked = Number(query.get("year"));
  const year = Number.isInteger(asked) && asked >= 1970 && asked <= 9999 ? asked : (years[0] ?? new Date().getUTCFullYear());
  const owner = owners.includes(query.get("owner") ?? "") ? query.get("owner") : null;
  const currency = /^[A-Z]{3}$/.test(query.get("currency") ?? "") && query.get("currency") !== "USD" ? query.get("currency") : null;
  return { year, owner, currency };
}

type YearView = "income" | "downloads";

export const choiceHref = (view: YearView, c: ReportChoice) => href(view, null, { year: c.year, owner: c.owner, currency: c.currency });

type Move = (change: Partial<ReportChoice>) => void;
const selected = (e: Event) => (e.target as HTMLSelectElement).value;

function Pickers({ view, choice, owners, years, currencies }: { view: YearView; choice: ReportChoice; owners: string[]; years: number[]; currencies: ListedCurrency[] }) {
  const move: Move = (change) => {
    location.hash = choiceHref(view, { ...choice, ...change });
  };
  const yearChoices = [...new Set([...years, choice.year])].sort((a, b) => b - a);
  return (
    <>
      <label class="inline">
        Year{" "}
        <select id="year" value={String(choice.year)} onChange={(e) => move({ year: Number(selected(e)) })}>
          {yearChoices.map((y) => (
            <option key={y} value={String(y)}>
              {y}
            </option>
          ))}
        </select>
      </label>
      <label class="inline">
        Wallets{" "}
        <select id="report-owner" value={choice.owner ?? ""} onChange={(e) => move({ owner: selected(e) || null })}>
          <option value="">All ({owners.length})</option>
          {owners.map((o) => (
            <option key={o} value={o}>
              {shortAddress(o)}
            </option>
          ))}
        </select>
      </label>
      <CurrencyPicker choice={choice} currencies={currencies} move={move} />
    </>
  );
}

/**
 * USD, then each currency with imported rates; one whose rates end before the year's last event
 * says so (read from the chosen report, already loading for the view: no extra request). A
 * currency typed in the URL stays offered even when nothing was imported for it.
 */
function CurrencyPicker({ choice, currencies, move }: { choice: ReportChoice; currencies: ListedCurrency[]; move: Move }) {
  const ledger = useLedger();
  const report = useLoad(reportKey(choice), () => loadReport(ledger.api, choice));
  const lastEventDate = report.status === "ok" ? report.data.lastEventDate : null;
  const typed = choice.currency !== null && !currencies.some((c) => c.currency === choice.currency) ? choice.currency : null;
  return (
    <>
      <label class="inline" title="Amounts also in another currency at the ECB reference rate of each event's day (ca-ledger rates import loads the rates)">
        Currency{" "}
        <select id="currency" value={choice.currency ?? ""} onChange={(e) => move({ currency: selected(e) || null })}>
          <option value="">USD</option>
          {currencies.map((c) => (
            <option key={c.currency} value={c.currency} title={`ECB rates from ${c.firstRateDate} to ${c.lastRateDate}`}>
              USD and {c.currency}
              {ratesEndBefore(c, lastEventDate) ? ` (rates to ${c.lastRateDate})` : ""}
            </option>
          ))}
          {typed && <option value={typed}>USD and {typed} (no rates imported)</option>}
        </select>
      </label>
      {currencies.length === 0 && (
        <span class="muted small" id="rates-hint">
          No exchange rates imported yet: run <code>ca-ledger rates import eurofxref-hist.csv</code> (the ECB's history) for amounts in EUR, GBP, CHF…, then Refresh.
        </span>
      )}
    </>
  );
}

type Children = (report: IncomeReport, choice: ReportChoice, owners: string[]) => ComponentChildren;

/** Reads the wallets and their years, shows the pickers, then hands the chosen report to the view. */
export function YearReport({ view, extra, children }: { view: YearView; extra?: (choice: ReportChoice) => ComponentChildren; children: Children }) {
  const ledger = useLedger();
  const route = useRoute();
  const loaded = useLoad("report-choices", () => reportChoices(ledger));
  return (
    <Await loaded={loaded} what="your wallets">
      {({ owners, years, currencies }) => {
        if (owners.length === 0) return <NoWallets />;
        const choice = chosen(route.query, owners, years);
        return (
          <>
            <div class="toolbar">
              <Pickers view={view} choice={choice} owners={owners} years={years} currencies={currencies} />
              {extra?.(choice)}
            </div>
            <ReportOf choice={choice} owners={owners}>
              {children}
            </ReportOf>
          </>
        );
      }}
    </Await>
  );
}

function ReportOf({ choice, owners, children }: { choice: ReportChoice; owners: string[]; children: Children }) {
  const ledger = useLedger();
  const loaded = useLoad(reportKey(choice), () => loadReport(ledger.api, choice));
  return (
    <Await loaded={loaded} what={`the ${choice.year} report`}>
      {(report) => children(report, choice, owners)}
    </Await>
  );
}
