// The operator's cost-basis declarations (`ca-ledger import cost-basis`, docs/lots.md#declared-cost-basis),
// stored as observations with source `operator`: each its canonical JSON and that text's SHA-256,
// one row per distinct declaration (importing the same one again stores nothing), never edited.
// The derivation reads them in stored order: a later declaration for the same acquisition wins.
import { sha256Hex } from "../domain/evidence.ts";
import { type CostBasisObservation, declarationPayload } from "../domain/lots/declarations.ts";
import { sealRows } from "./seals.ts";
import type { Sql } from "./sql/port.ts";

export interface CostBasisImport {
  /** Declarations stored now. */
  added: number;
  /** Declarations the ledger already held (the same text, imported before). */
  known: number;
  /** Wallets the stored declarations are about, sorted. */
  owners: string[];
}

/** Stores the declarations in one transaction, in the file's order, sealed. */
export async function storeCostBasis(db: Sql, declarations: readonly CostBasisObservation[], now = new Date()): Promise<CostBasisImport> {
  const insert = "INSERT INTO cost_basis_declarations (owner, payload, payload_sha256, source, imported_at) VALUES (?, ?, ?, 'operator', ?) ON CONFLICT DO NOTHING";
  return db.write(async (tx) => {
    const out: CostBasisImport = { added: 0, known: 0, owners: [] };
    const owners = new Set<string>();
    for (const d of declarations) {
      const payload = declarationPayload(d);
      const added = (await tx.run(insert, d.owner, payload, sha256Hex(payload), now.toISOString())).changes;
      if (added) {
        out.added++;
        owners.add(d.owner);
      } else out.known++;
    }
    out.owners = [...owners].sort();
    await sealRows(tx);
    return out;
  });
}

/** Of these wallets, those no tenant follows (a declaration about one is a typo until shown otherwise). */
export async function unfollowedOwners(db: Sql, owners: readonly string[]): Promise<Set<string>> {
  const rows = await db.all<{ owner: string }>("SELECT DISTINCT owner FROM tenant_wallets WHERE owner IN (SELECT value FROM json_each(?1))", JSON.stringify([...new Set(owners)]));
  const followed = new Set(rows.map((r) => r.owner));
  return new Set(owners.filter((o) => !followed.has(o)));
}

/** The declarations about these wallets, in stored order. */
export async function readCostBasis(tx: Sql, owners: readonly string[]): Promise<CostBasisObservation[]> {
  const rows = await tx.all<{ payload: string }>("SELECT payload FROM cost_basis_declarations WHERE owner IN (SELECT value FROM json_each(?1)) ORDER BY id", JSON.stringify(owners));
  return rows.map((r) => JSON.parse(r.payload) as CostBasisObservation);
}
