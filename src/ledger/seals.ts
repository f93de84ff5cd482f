// Row seals: the SHA-256 of each stored row that nothing else derives (observations as received,
// the journal, the dataset label), kept in its `row_sha256` column. Derived tables need no seal:
// `ca-ledger verify` re-derives them. A seal is set by `sealRows` in the transaction that wrote
// the row; the journal's seals are chained (each covers the previous entry's seal), so a removed
// or reordered entry breaks every seal after it. Seals are not secret: they catch a changed byte
// (a disk, a bad restore, a hand edit), not a writer who recomputes them.
import type { Database } from "bun:sqlite";
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";

export interface SealedTable { name: string; columns: readonly string[]; chained: boolean }

/** Every column of each sealed table but the seal itself (a test checks none is left out). */
export const sealedTables: readonly SealedTable[] = [
  { name: "dataset_label", columns: ["id", "kind", "description", "created_at"], chained: false },
  { name: "instruments", columns: ["mint", "symbol", "name", "underlying", "isin", "decimals", "updated_at", "source", "uri"], chained: false },
  { name: "issuer_revisions", columns: ["id", "event_id", "version", "symbol", "payload", "payload_sha256", "edited", "ingested_at", "source", "mint"], chained: false },
  { name: "mint_states", columns: ["id", "mint", "slot", "decimals", "authority", "multiplier", "new_multiplier", "new_multiplier_effective_ts", "observed_at"], chained: false },
  { name: "multiplier_updates", columns: ["signature", "ix_index", "mint", "slot", "block_time", "multiplier", "effective_ts", "authority"], chained: false },
  {
    name: "journal",
    columns: ["id", "owner", "action_id", "entry_type", "reverses_id", "mint", "symbol", "type", "treatment", "kind", "units_delta", "principal_units_delta",
      "income_units", "usd", "factor", "effective_at", "change_reason", "evidence_sha256", "payload", "created_at"],
    chained: true,
  },
];

type Row = Record<string, string | number | null>;

/** A row's seal: SHA-256 over the previous seal (chained tables) and the row's canonical JSON. */
export function rowSeal(table: SealedTable, row: Row, previous: string): string {
  const content = canonicalJson(Object.fromEntries(table.columns.map((c) => [c, row[c] ?? null])));
  return sha256Hex(table.chained ? `${previous}\n${content}` : content);
}

const select = (t: SealedTable) => `SELECT rowid AS "rowid", ${t.columns.map((c) => `"${c}"`).join(", ")}, row_sha256 FROM "${t.name}"`;

/**
 * Seals every row that has no seal yet. Call it last in each transaction that writes a sealed
 * table (it finds the new rows through the partial `*_unsealed` indexes), and once at start to
 * seal rows written before seals existed.
 */
export function sealRows(sqlite: Database): number {
  let sealed = 0;
  for (const t of sealedTables) {
    const rows = sqlite.query(`${select(t)} WHERE row_sha256 IS NULL ORDER BY rowid`).all() as (Row & { rowid: number })[];
    if (!rows.length) continue;
    const set = sqlite.query(`UPDATE "${t.name}" SET row_sha256 = ? WHERE rowid = ?`);
    let previous = t.chained ? previousSeal(sqlite, t, rows[0]!.rowid) : "";
    for (const r of rows) {
      const seal = rowSeal(t, r, previous);
      set.run(seal, r.rowid);
      previous = seal;
      sealed++;
    }
  }
  return sealed;
}

function previousSeal(sqlite: Database, t: SealedTable, rowid: number): string {
  const r = sqlite.query(`SELECT row_sha256 FROM "${t.name}" WHERE rowid < ? ORDER BY rowid DESC LIMIT 1`).get(rowid) as { row_sha256: string | null } | null;
  return r?.row_sha256 ?? "";
}

/** Every stored row whose content no longer matches its seal, or that was never sealed. */
export function* brokenSeals(sqlite: Database): Generator<{ table: string; rowid: number; problem: string }, void, undefined> {
  for (const t of sealedTables) {
    let previous = "";
    for (const r of sqlite.query(`${select(t)} ORDER BY rowid`).iterate() as Iterable<Row & { rowid: number; row_sha256: string | null }>) {
      const seal = rowSeal(t, r, previous);
      if (r.row_sha256 === null) yield { table: t.name, rowid: r.rowid, problem: "was never sealed" };
      else if (r.row_sha256 !== seal) yield { table: t.name, rowid: r.rowid, problem: `hashes to ${seal}, sealed ${r.row_sha256}` };
      // The chain goes on from the stored seal, so one changed entry is named once, not with every later one.
      previous = r.row_sha256 ?? seal;
    }
  }
}

/** How many rows of sealed tables verify looks at. */
export function sealedRowCount(sqlite: Database): number {
  return sealedTables.reduce((n, t) => n + (sqlite.query(`SELECT count(*) AS n FROM "${t.name}"`).get() as { n: number }).n, 0);
}
