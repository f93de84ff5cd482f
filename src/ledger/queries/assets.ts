import type { Sql } from "../sql/port.ts";
import { f64ToDecimal } from "../../domain/numbers.ts";
import type { InstrumentSource } from "../../domain/observations.ts";

/**
 * Whether tenant ?1 may see the mint named by `mint` (a column or a placeholder): a mint the issuer
 * feed lists is public; any other (named by its own metadata, or not named at all) was found in
 * some wallet, so only a tenant one of whose wallets holds or held it sees it, once its own first
 * sync of that wallet finished (docs/api.md#tenancy). Otherwise the mints found in other tenants'
 * wallets, with when they were found, would tell what those wallets hold.
 */
export const mintVisibleToTenant = (mint: string) =>
  `(EXISTS (SELECT 1 FROM instruments fi WHERE fi.mint = ${mint} AND fi.source = 'xstocks')
    OR EXISTS (SELECT 1 FROM tenant_wallets tw JOIN token_accounts ta ON ta.owner = tw.owner
               WHERE tw.tenant_id = ?1 AND tw.first_synced_at IS NOT NULL AND ta.mint = ${mint}))`;

/** Whether the tenant may see this mint (see mintVisibleToTenant). */
export async function mintVisible(db: Sql, tenantId: number, mint: string): Promise<boolean> {
  return (await db.get(`SELECT 1 AS visible WHERE ${mintVisibleToTenant("?2")}`, tenantId, mint)) !== null;
}

/** The instruments this tenant may see (see mintVisibleToTenant), with the multiplier in force. */
export async function listAssets(db: Sql, tenantId: number, nowSeconds = Math.floor(Date.now() / 1000)) {
  const rows = await db.all<{
    mint: string; symbol: string; name: string | null; underlying: string | null; isin: string | null; decimals: number | null; updated_at: string;
    source: InstrumentSource; uri: string | null; multiplier: string | null; new_multiplier: string | null; new_multiplier_effective_ts: number | null;
  }>(
    `SELECT i.mint, i.symbol, i.name, i.underlying, i.isin, coalesce(s.decimals, i.decimals) AS decimals, i.updated_at, i.source, i.uri,
            s.multiplier, s.new_multiplier, s.new_multiplier_effective_ts
     FROM instruments i
     LEFT JOIN mint_states s ON s.id = (SELECT id FROM mint_states WHERE mint = i.mint ORDER BY slot DESC LIMIT 1)
     WHERE ${mintVisibleToTenant("i.mint")}
     ORDER BY i.symbol, i.mint`,
    tenantId,
  );
  return rows.map((r) => {
    // The multiplier in force is the new one once its timestamp has passed (docs/scaled-ui-amount.md#the-multiplier-in-force).
    const inForce = r.multiplier === null ? null : r.new_multiplier_effective_ts !== null && nowSeconds >= r.new_multiplier_effective_ts ? r.new_multiplier! : r.multiplier;
    return {
      mint: r.mint, symbol: r.symbol, name: r.name, underlying: r.underlying, isin: r.isin, decimals: r.decimals,
      multiplier: inForce === null ? null : f64ToDecimal(Number(inForce)), updatedAt: r.updated_at, source: r.source, uri: r.uri,
    };
  });
}

/** Which of these mints the issuer feed's asset list covers (its records reach them through its symbols), with the feed's symbol. */
export async function feedCoveredMints(db: Sql, mints: string[]): Promise<{ mint: string; symbol: string }[]> {
  return db.all<{ mint: string; symbol: string }>(
    "SELECT mint, symbol FROM instruments WHERE source = 'xstocks' AND mint IN (SELECT value FROM json_each(?1)) ORDER BY symbol, mint",
    JSON.stringify(mints),
  );
}
