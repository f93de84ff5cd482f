// The journal's income entries of a period, for the year report (src/domain/income-report.ts sums
// them). Read per wallet off the journal's (owner, effective_at) index; the breakdown parts sit in
// each entry's canonical payload.
import type { Sql } from "../sql/port.ts";
import type { DateRange } from "../../domain/date-range.ts";
import type { IncomeEntry } from "../../domain/income-report.ts";
import { journalSql } from "../tables/journal.ts";

export function incomeEntries(db: Sql) {
  return async (owners: readonly string[], range: DateRange): Promise<IncomeEntry[]> => {
    const entries: IncomeEntry[] = [];
    for (const owner of owners) entries.push(...(await db.all(journalSql.incomeEntries, { owner, from: range.from, before: range.before })));
    return entries;
  };
}
