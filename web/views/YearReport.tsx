// The year report both the Income and the Downloads views show: the server's report for the
// year, wallets and currency chosen in the URL (#/income?year=2026&owner=…&currency=EUR; by
// default the latest year with entries, every wallet, USD only), and the pickers that move the URL.
import type { ComponentChildren } from "preact";
import { cached } from "../src/api.ts";
import { useLedger, walletsOf, type Ledger } from "../src/context.ts";
import { shortAddress } from "../src/format.ts";
import { entryYears, loadReport, reportKey, type IncomeReport, type ReportChoice } from "../src/income-report.ts";
import { useLoad } from "../src/load.ts";
import { href, useRoute } from "../src/route.ts";
import { NoWallets } from "./Holdings.tsx";
import { Await } from "./states.tsx";

/**
 * Currencies offered besides USD. No route lists the currencies whose ECB rates were imported, so
 * the picker offers EUR (the ECB's own) and any other three-letter code named in the URL; the
 * report says, per row, when a rate is missing and how to import it.
 */
const offeredCurrencies = ["EUR"];

async function walletsAndYears(ledger: Ledger) {
  const { wallets } = await walletsOf(ledger);
  const owners = wallets.map((w) => w.owner);
  const perWallet = await Promise.all(owners.map((o) => cached(ledger.cache, `years:${o}`, () => entryYears(ledger.api, o))));
  return { owners, years: [...new Set(perWallet.flat())].sort((a, b) => b - a) };
}

/** The choice in the URL, else the latest year with entries (else this year), every wallet, USD only. */
function chosen(query: URLSearchParams, owners: string[], years: number[]): ReportChoice {
  const asked = Number(query.get("year"));
  const year = Number.isInteger(asked) && asked >= 1970 && asked <= 9999 ? asked : years[0] ?? new Date().getUTCFullYear();
  const owner = owners.includes(query.get("owner") ?? "") ? query.get("owner") : null;
  const currency = /^[A-Z]{3}$/.test(query.get("currency") ?? "") && query.get("currency") !== "USD" ? query.get("currency") : null;
  return { year, owner, currency };
}

type YearView = "income" | "downloads";

export const choiceHref = (view: YearView, c: ReportChoice) => href(view, null, { year: c.year, owner: c.owner, currency: c.currency });

function Pickers({ view, choice, owners, years }: { view: YearView; choice: ReportChoice; owners: string[]; years: number[] }) {
  const move = (change: Partial<ReportChoice>) => { location.hash = choiceHref(view, { ...choice, ...change }); };
  const value = (e: Event) => (e.target as HTMLSelectElement).value;
  const yearChoices = [...new Set([...years, choice.year])].sort((a, b) => b - a);
  const currencies = [...new Set([...offeredCurrencies, ...(choice.currency ? [choice.currency] : [])])];
  return (
    <>
      <label class="inline">
        Year{" "}
        <select id="year" value={String(choice.year)} onChange={(e) => move({ year: Number(value(e)) })}>
          {yearChoices.map((y) => <option key={y} value={String(y)}>{y}</option>)}
        </select>
      </label>
      <label class="inline">
        Wallets{" "}
        <select id="report-owner" value={choice.owner ?? ""} onChange={(e) => move({ owner: value(e) || null })}>
          <option value="">All ({owners.length})</option>
          {owners.map((o) => <option key={o} value={o}>{shortAddress(o)}</option>)}
        </select>
      </label>
      <label class="inline" title="Amounts also in another currency at the ECB reference rate of each event's day (ca-ledger rates import loads the rates)">
        Currency{" "}
        <select id="currency" value={choice.currency ?? ""} onChange={(e) => move({ currency: value(e) || null })}>
          <option value="">USD</option>
          {currencies.map((c) => <option key={c} value={c}>USD and {c}</option>)}
        </select>
      </label>
    </>
  );
}

type Children = (report: IncomeReport, choice: ReportChoice, owners: string[]) => ComponentChildren;

/** Reads the wallets and their years, shows the pickers, then hands the chosen report to the view. */
export function YearReport({ view, extra, children }: { view: YearView; extra?: (choice: ReportChoice) => ComponentChildren; children: Children }) {
  const ledger = useLedger();
  const route = useRoute();
  const loaded = useLoad("wallets-and-years", () => walletsAndYears(ledger));
  return (
    <Await loaded={loaded} what="your wallets">
      {({ owners, years }) => {
        if (owners.length === 0) return <NoWallets />;
        const choice = chosen(route.query, owners, years);
        return (
          <>
            <div class="toolbar"><Pickers view={view} choice={choice} owners={owners} years={years} />{extra?.(choice)}</div>
            <ReportOf choice={choice} owners={owners}>{children}</ReportOf>
          </>
        );
      }}
    </Await>
  );
}

function ReportOf({ choice, owners, children }: { choice: ReportChoice; owners: string[]; children: Children }) {
  const ledger = useLedger();
  const loaded = useLoad(reportKey(choice), () => loadReport(ledger.api, choice));
  return <Await loaded={loaded} what={`the ${choice.year} report`}>{(report) => children(report, choice, owners)}</Await>;
}
