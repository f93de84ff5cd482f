// The journal's income entries of a period, for the year report (src/domain/income-report.ts sums
// them). Read per wallet off the journal's (owner, effective_at) index; the breakdown parts sit in
// each entry's canonical payload.
import type { Sql } from "../sql/port.ts";
import type { DateRange } from "../../domain/date-range.ts";
import type { IncomeEntry } from "../../domain/income-report.ts";

export const incomeEntriesSql = `SELECT entry_type AS "entryType", effective_at AS "effectiveAt", symbol, usd,
  json_extract(payload, '$.grossUsd') AS "grossUsd", json_extract(payload, '$.withholdingTaxUsd') AS "withholdingTaxUsd",
  json_extract(payload, '$.retainedUsd') AS "retainedUsd"
  FROM journal WHERE owner = ?1 AND effective_at >= ?2 AND effective_at < ?3 AND treatment = 'income'`;

export function incomeEntries(db: Sql) {
  return async (owners: readonly string[], range: DateRange): Promise<IncomeEntry[]> => {
    const entries: IncomeEntry[] = [];
    for (const owner of owners) entries.push(...(await db.all<IncomeEntry>(incomeEntriesSql, owner, range.from, range.before)));
    return entries;
  };
}
