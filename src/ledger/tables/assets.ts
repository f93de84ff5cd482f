// The instruments a tenant may see (GET /v1/assets, an asset's mint on other routes): a mint the
// issuer feed lists is public; any other (named by its own metadata, or not named at all) was
// found in some wallet, so only a tenant one of whose wallets holds or held it sees it, once its
// own first sync of that wallet finished (docs/api.md#tenancy). Otherwise the mints found in
// other tenants' wallets, with when they were found, would tell what those wallets hold.
import type { InstrumentRow } from "./instruments.ts";
import type { MintStateRow } from "./mint-states.ts";
import { query, sql, statements, type Hole, type Param } from "../sql/statement.ts";

const visibleToTenant = (tenantId: Param<number>, mint: Hole) =>
  sql`(EXISTS (SELECT 1 FROM instruments fi WHERE fi.mint = ${mint} AND fi.source = 'xstocks')
    OR EXISTS (SELECT 1 FROM tenant_wallets tw JOIN token_accounts ta ON ta.owner = tw.owner
               WHERE tw.tenant_id = ${tenantId} AND tw.first_synced_at IS NOT NULL AND ta.mint = ${mint}))`;

/** An instrument with its latest state's multipliers (null: no state stored yet). */
interface AssetRow extends Omit<InstrumentRow, "row_sha256"> {
  multiplier: MintStateRow["multiplier"] | null;
  new_multiplier: MintStateRow["new_multiplier"] | null;
  new_multiplier_effective_ts: MintStateRow["new_multiplier_effective_ts"] | null;
}

export const assetSql = statements("assets", {
  visible: query<{ tenantId: number; mint: string }, { visible: number }>((p) => sql`SELECT 1 AS visible WHERE ${visibleToTenant(p.tenantId, p.mint)}`),
  /** With each mint's latest state (its multipliers), by symbol. */
  visibleInstruments: query<{ tenantId: number }, AssetRow>(
    (p) =>
      sql`SELECT i.mint, i.symbol, i.name, i.underlying, i.isin, coalesce(s.decimals, i.decimals) AS decimals, i.updated_at, i.source, i.uri,
            s.multiplier, s.new_multiplier, s.new_multiplier_effective_ts
     FROM instruments i
     LEFT JOIN mint_states s ON s.id = (SELECT id FROM mint_states WHERE mint = i.mint ORDER BY slot DESC LIMIT 1)
     WHERE ${visibleToTenant(p.tenantId, sql`i.mint`)}
     ORDER BY i.symbol, i.mint`,
  ),
});
