// The year's income by month and symbol, across the wallets asked for: the shape of the year
// report (rows per month × symbol with events, gross, withheld, retained and net USD, unvalued
// events, and totals). Until the API serves that report it is computed here from the income
// entries (`reportFromEntries`); when the route exists, the views take its answer instead.
import type { Client, IncomeList } from "@ca-ledger/client";
import { sumDecimals } from "./format.ts";

type Entry = IncomeList["entries"][number];

export interface ReportFigures {
  events: number;
  grossUsd: string | null;
  withholdingTaxUsd: string | null;
  retainedUsd: string | null;
  /** Net USD. */
  usd: string | null;
  unvaluedEvents: number;
}
export interface ReportRow extends ReportFigures { month: string; symbol: string }
export interface IncomeReport { year: number; owners: string[]; rows: ReportRow[]; months: (ReportFigures & { month: string })[]; totals: ReportFigures }

/** An income event is an entry of kind dividend (splits and unclassified adjustments are not income). */
export const isIncome = (entry: Entry): boolean => entry.kind === "dividend";

/** Sums the exact amounts behind the entries' rounded figures: a total is rounded once, when shown. */
export function figures(entries: Entry[]): ReportFigures {
  const net = sumDecimals(entries.map((e) => e.exact.usd));
  return {
    events: entries.length,
    grossUsd: sumDecimals(entries.map((e) => e.exact.grossUsd)).value,
    withholdingTaxUsd: sumDecimals(entries.map((e) => e.exact.withholdingTaxUsd)).value,
    retainedUsd: sumDecimals(entries.map((e) => e.exact.retainedUsd)).value,
    usd: net.value,
    unvaluedEvents: net.unknown,
  };
}

const monthsOf = (year: number): string[] => Array.from({ length: 12 }, (_, i) => `${year}-${String(i + 1).padStart(2, "0")}`);

/** The report of one year from income entries (any wallets, any order). */
export function reportFromEntries(year: number, owners: string[], entries: Entry[]): IncomeReport {
  const inYear = entries.filter((e) => isIncome(e) && e.effectiveAt.startsWith(`${year}-`));
  const cells = new Map<string, Entry[]>();
  for (const e of inYear) {
    const key = `${e.effectiveAt.slice(0, 7)}\u0000${e.symbol ?? e.mint}`;
    cells.set(key, [...(cells.get(key) ?? []), e]);
  }
  const rows = [...cells.entries()]
    .map(([key, list]) => {
      const [month, symbol] = key.split("\u0000") as [string, string];
      return { month, symbol, ...figures(list) };
    })
    .sort((a, b) => a.month.localeCompare(b.month) || a.symbol.localeCompare(b.symbol));
  const months = monthsOf(year).map((month) => ({ month, ...figures(inYear.filter((e) => e.effectiveAt.startsWith(month))) }));
  return { year, owners, rows, months, totals: figures(inYear) };
}

/** Every income entry of a wallet from `year` on (the list is newest first, so paging stops early). */
export async function entriesSince(api: Client, owner: string, year: number, pageSize = 200): Promise<Entry[]> {
  const out: Entry[] = [];
  for (let offset: number | null = 0; offset !== null; ) {
    const page: IncomeList = await api.income(owner, { limit: pageSize, offset });
    out.push(...page.entries);
    const last = page.entries[page.entries.length - 1];
    offset = last && last.effectiveAt < `${year}-` ? null : page.nextOffset;
  }
  return out;
}

/** The years that have income entries, newest first. */
export function yearsOf(entries: Entry[]): number[] {
  return [...new Set(entries.filter(isIncome).map((e) => Number(e.effectiveAt.slice(0, 4))))].sort((a, b) => b - a);
}
