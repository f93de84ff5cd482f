// The operator's cost-basis declarations (`ca-ledger import cost-basis`, docs/lots.md#declared-cost-basis),
// stored as observations with source `operator`: each its canonical JSON and that text's SHA-256,
// one row per distinct declaration (importing the same one again stores nothing), never edited.
// The derivation reads them in stored order: a later declaration for the same acquisition wins.
import { sha256Hex } from "../domain/evidence.ts";
import { type CostBasisObservation, declarationPayload } from "../domain/lots/declarations.ts";
import { sealRows } from "./seals.ts";
import type { Sql } from "./sql/port.ts";
import { costBasisDeclarationSql, declarationFromRow } from "./tables/cost-basis-declarations.ts";
import { tenantWalletSql } from "./tables/tenant-wallets.ts";

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
  return db.write(async (tx) => {
    const out: CostBasisImport = { added: 0, known: 0, owners: [] };
    const owners = new Set<string>();
    for (const d of declarations) {
      const payload = declarationPayload(d);
      const added = (await tx.run(costBasisDeclarationSql.insert, { owner: d.owner, payload, payloadSha256: sha256Hex(payload), at: now.toISOString() })).changes;
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
  const followed = new Set((await db.all(tenantWalletSql.followedAmong, { owners: [...new Set(owners)] })).map((r) => r.owner));
  return new Set(owners.filter((o) => !followed.has(o)));
}

/** The declarations about these wallets, in stored order. */
export async function readCostBasis(tx: Sql, owners: readonly string[]): Promise<CostBasisObservation[]> {
  return (await tx.all(costBasisDeclarationSql.ofOwners, { owners })).map(declarationFromRow);
}
