// What `ca-ledger verify` checks of what the lots are derived from (docs/lots.md#what-is-stored).
// Nothing derived of the lots is stored (each route derives them per request), so there is no
// stored lot to compare; the observations they come from are checked here, beside their seals
// (seals.ts): each declaration is its hash's canonical text, and each stored transaction part
// agrees with the balance changes stored for the same transaction and wallet.
import { canonicalJson, sha256Hex } from "../domain/evidence.ts";
import { groupBy } from "../domain/group.ts";
import type { Sql } from "./sql/port.ts";
import { balanceChangeSql } from "./tables/balance-changes.ts";
import { costBasisDeclarationSql } from "./tables/cost-basis-declarations.ts";
import { transactionChangeFromRow, transactionChangeSql } from "./tables/transaction-changes.ts";

type Problem = (message: string) => void;

/** Each declaration: its text hashes to its hash, is canonical JSON of a declaration, about the row's owner. */
export async function checkCostBasisDeclarations(db: Sql, fail: Problem): Promise<number> {
  let checked = 0;
  for await (const r of db.iterate(costBasisDeclarationSql.all)) {
    checked++;
    const name = `cost-basis declaration ${r.id}`;
    if (sha256Hex(r.payload) !== r.payload_sha256) fail(`${name}: payload hashes to ${sha256Hex(r.payload)}, stored ${r.payload_sha256}`);
    let d: { kind?: unknown; owner?: unknown };
    try {
      d = JSON.parse(r.payload);
    } catch {
      fail(`${name}: payload is not JSON`);
      continue;
    }
    if (canonicalJson(d) !== r.payload) fail(`${name}: payload is not in canonical form`);
    if (d.kind !== "cost" && d.kind !== "lot") fail(`${name}: payload is neither a cost nor a lot declaration`);
    if (d.owner !== r.owner) fail(`${name}: owner column ${r.owner} differs from its payload's ${String(d.owner)}`);
  }
  return checked;
}

/**
 * Each stored part reads back (well-formed JSON, whole raw amounts), and, for every mint the
 * ledger stored balance changes of for the same transaction and wallet, moves the same raw amount
 * at the same slot and block time: the prices and the positions read the same transaction.
 */
export async function checkTransactionChanges(db: Sql, fail: Problem): Promise<number> {
  let checked = 0;
  const owners = (await db.all(transactionChangeSql.owners)).map((r) => r.owner);
  for (const owner of owners) {
    const parts = await db.all(transactionChangeSql.ofOwners, { owners: [owner] });
    const changes = groupBy(await db.all(balanceChangeSql.ofOwners, { owners: [owner] }), (c) => c.signature);
    for (const row of parts) {
      checked++;
      const name = `transaction ${row.signature} of ${owner}`;
      let part;
      try {
        part = transactionChangeFromRow(row);
        if (!Array.isArray(part.signers) || part.tokens.some((t) => !Number.isInteger(t.decimals) || t.preRaw < 0n || t.postRaw < 0n)) throw new Error("malformed");
      } catch {
        fail(`${name}: its stored part does not read back (signers, lamports or tokens malformed)`);
        continue;
      }
      const net = new Map<string, bigint>();
      for (const t of part.tokens) net.set(t.mint, (net.get(t.mint) ?? 0n) + t.postRaw - t.preRaw);
      for (const [mint, rows] of groupBy(changes.get(row.signature) ?? [], (c) => c.mint)) {
        const stored = rows.reduce((s, c) => s + BigInt(c.post_raw) - BigInt(c.pre_raw), 0n);
        if ((net.get(mint) ?? 0n) !== stored) fail(`${name}: its part moves ${net.get(mint) ?? 0n} raw of ${mint}, its balance changes ${stored}`);
        if (rows.some((c) => c.slot !== row.slot || c.block_time !== row.block_time)) fail(`${name}: its part's slot or block time differs from its balance changes'`);
      }
    }
  }
  return checked;
}
