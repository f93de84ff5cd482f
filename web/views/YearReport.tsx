// The year report both the Income and the Downloads views show: every wallet's income entries,
// read once per page life, the year chosen in the URL (else the latest year with income), and a
// picker that moves the URL.
import type { ComponentChildren } from "preact";
import { cached } from "../src/api.ts";
import { useLedger, walletsOf, type Ledger } from "../src/context.ts";
import { entriesSince, reportFromEntries, yearsOf, type IncomeReport } from "../src/income-report.ts";
import { useLoad } from "../src/load.ts";
import { href, useRoute } from "../src/route.ts";
import { NoWallets } from "./Holdings.tsx";
import { Await } from "./states.tsx";

async function allIncome(ledger: Ledger) {
  const { wallets } = await walletsOf(ledger);
  const owners = wallets.map((w) => w.owner);
  const lists = await Promise.all(owners.map((owner) => cached(ledger.cache, `income:${owner}`, () => entriesSince(ledger.api, owner, 0))));
  return { owners, entries: lists.flat() };
}

/** The year in the URL, else the latest year with income, else this year. */
function chosenYear(query: URLSearchParams, years: number[]): number {
  const asked = Number(query.get("year"));
  return Number.isInteger(asked) && asked > 1900 ? asked : years[0] ?? new Date().getUTCFullYear();
}

type YearView = "income" | "downloads";

function YearPicker({ years, year, view }: { years: number[]; year: number; view: YearView }) {
  const choices = [...new Set([...years, year])].sort((a, b) => b - a);
  return (
    <label class="inline">
      Year{" "}
      <select id="year" value={String(year)} onChange={(e) => { location.hash = href(view, null, { year: (e.target as HTMLSelectElement).value }); }}>
        {choices.map((y) => <option key={y} value={String(y)}>{y}</option>)}
      </select>
    </label>
  );
}

/** Loads the entries and hands the chosen year's report (and its picker) to the view. */
export function YearReport({ view, children }: { view: YearView; children: (report: IncomeReport, picker: ComponentChildren) => ComponentChildren }) {
  const ledger = useLedger();
  const route = useRoute();
  const loaded = useLoad("income:all", () => allIncome(ledger));
  return (
    <Await loaded={loaded} what="income">
      {({ owners, entries }) => {
        if (owners.length === 0) return <NoWallets />;
        const years = yearsOf(entries);
        const year = chosenYear(route.query, years);
        return children(reportFromEntries(year, owners, entries), <YearPicker years={years} year={year} view={view} />);
      }}
    </Await>
  );
}
