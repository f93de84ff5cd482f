// The wallet transactions a sync already scanned for the wallet's token accounts.
import { inList, jsonEach, query, sql, statements } from "../sql/statement.ts";

export const ownerScanSql = statements("owner_scans", {
  insert: query<{ owner: string; signatures: readonly string[] }>(
    (p) => sql`INSERT INTO owner_scans (owner, signature) SELECT ${p.owner}, value FROM ${jsonEach(p.signatures)} WHERE true ON CONFLICT DO NOTHING`,
  ),
  scanned: query<{ owner: string; signatures: readonly string[] }, { signature: string }>(
    (p) => sql`SELECT signature FROM owner_scans WHERE owner = ${p.owner} AND signature IN ${inList(p.signatures)}`,
  ),
});
