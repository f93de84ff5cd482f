// Row seals: the SHA-256 of each stored row that nothing else derives (observations as received,
// the journal, imported reference rates, the dataset label), kept in its `row_sha256` column. Derived tables need no seal:
// `ca-ledger verify` re-derives them. A seal is set by `sealRows` in the transaction that wrote
// the row; the journal's seals are chained (each covers the previous entry's seal), so a removed
// or reordered entry breaks every seal after it. Seals are not secret: they catch a changed byte
// (a disk, a bad restore, a hand edit), not a writer who recomputes them.
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";
import type { Sql, SqlValue } from "./sql/port.ts";

/**
 * `key` is the table's primary key: rows are named, found and sealed by it, and sealed in its
 * order (the journal's chain runs in id order).
 */
export interface SealedTable { name: string; columns: readonly string[]; key: readonly string[]; chained: boolean }

/** Every column of each sealed table but the seal itself (a test checks none is left out). */
export const sealedTables: readonly SealedTable[] = [
  { name: "dataset_label", columns: ["id", "kind", "description", "created_at"], key: ["id"], chained: false },
  { name: "instruments", columns: ["mint", "symbol", "name", "underlying", "isin", "decimals", "updated_at", "source", "uri"], key: ["mint"], chained: false },
  { name: "issuer_revisions", columns: ["id", "event_id", "version", "symbol", "payload", "payload_sha256", "edited", "ingested_at", "source", "mint"], key: ["id"], chained: false },
  { name: "mint_states", columns: ["id", "mint", "slot", "decimals", "authority", "multiplier", "new_multiplier", "new_multiplier_effective_ts", "observed_at"], key: ["id"], chained: false },
  // Imported by the operator, replaced in place when a later file corrects a quote (the importer
  // clears the seal and seals again); the year report converts with them.
  { name: "reference_rates", columns: ["currency", "date", "per_eur", "imported_at"], key: ["currency", "date"], chained: false },
  { name: "multiplier_updates", columns: ["signature", "ix_index", "mint", "slot", "block_time", "multiplier", "effective_ts", "authority"], key: ["signature", "ix_index"], chained: false },
  { name: "transaction_changes", columns: ["signature", "owner", "slot", "block_time", "signers", "lamports", "tokens"], key: ["signature", "owner"], chained: false },
  { name: "cost_basis_declarations", columns: ["id", "owner", "payload", "payload_sha256", "source", "imported_at"], key: ["id"], chained: false },
  {
    name: "journal",
    columns: ["id", "owner", "action_id", "entry_type", "reverses_id", "mint", "symbol", "type", "treatment", "kind", "units_delta", "principal_units_delta",
      "income_units", "usd", "factor", "effective_at", "change_reason", "evidence_sha256", "payload", "created_at"],
    key: ["id"],
    chained: true,
  },
];

type Row = Record<string, string | number | null>;

/** A row's seal: SHA-256 over the previous seal (chained tables) and the row's canonical JSON. */
export function rowSeal(table: SealedTable, row: Row, previous: string): string {
  const content = canonicalJson(Object.fromEntries(table.columns.map((c) => [c, row[c] ?? null])));
  return sha256Hex(table.chained ? `${previous}\n${content}` : content);
}

const select = (t: SealedTable) => `SELECT ${t.columns.map((c) => `"${c}"`).join(", ")}, row_sha256 FROM "${t.name}"`;
const order = (t: SealedTable) => `ORDER BY ${t.key.map((c) => `"${c}"`).join(", ")}`;
const keyOf = (t: SealedTable, row: Row): SqlValue[] => t.key.map((c) => row[c] ?? null);

/**
 * Seals every row that has no seal yet. Call it last in each transaction that writes a sealed
 * table (it finds the new rows through the partial `*_unsealed` indexes), and once at start to
 * seal rows written before seals existed.
 */
export async function sealRows(tx: Sql): Promise<number> {
  let sealed = 0;
  for (const t of sealedTables) {
    const rows = await tx.all<Row>(`${select(t)} WHERE row_sha256 IS NULL ${order(t)}`);
    if (!rows.length) continue;
    const set = `UPDATE "${t.name}" SET row_sha256 = ? WHERE ${t.key.map((c) => `"${c}" = ?`).join(" AND ")}`;
    let previous = t.chained ? await previousSeal(tx, t, rows[0]!) : "";
    for (const r of rows) {
      const seal = rowSeal(t, r, previous);
      await tx.run(set, seal, ...keyOf(t, r));
      previous = seal;
      sealed++;
    }
  }
  return sealed;
}

/** The seal before a chained row (chained tables have a one-column integer key). */
async function previousSeal(tx: Sql, t: SealedTable, row: Row): Promise<string> {
  const [key] = t.key;
  const r = await tx.get<{ row_sha256: string | null }>(`SELECT row_sha256 FROM "${t.name}" WHERE "${key}" < ? ORDER BY "${key}" DESC LIMIT 1`, row[key!] ?? null);
  return r?.row_sha256 ?? "";
}

/** Every stored row whose content no longer matches its seal, or that was never sealed; `key` names the row. */
export async function* brokenSeals(db: Sql): AsyncGenerator<{ table: string; key: string; problem: string }, void, undefined> {
  for (const t of sealedTables) {
    let previous = "";
    for await (const r of db.iterate<Row & { row_sha256: string | null }>(`${select(t)} ${order(t)}`)) {
      const seal = rowSeal(t, r, previous);
      const key = keyOf(t, r).join(" ");
      if (r.row_sha256 === null) yield { table: t.name, key, problem: "was never sealed" };
      else if (r.row_sha256 !== seal) yield { table: t.name, key, problem: `hashes to ${seal}, sealed ${r.row_sha256}` };
      // The chain goes on from the stored seal, so one changed entry is named once, not with every later one.
      previous = r.row_sha256 ?? seal;
    }
  }
}

/** How many rows of sealed tables verify looks at. */
export async function sealedRowCount(db: Sql): Promise<number> {
  let n = 0;
  for (const t of sealedTables) n += (await db.get<{ n: number }>(`SELECT count(*) AS n FROM "${t.name}"`))!.n;
  return n;
}
