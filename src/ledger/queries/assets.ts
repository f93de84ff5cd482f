import type { Sql } from "../sql/port.ts";
import { f64ToDecimal } from "../../domain/numbers.ts";
import { assetSql } from "../tables/assets.ts";
import { instrumentSql } from "../tables/instruments.ts";

/** Whether the tenant may see this mint (see tables/assets.ts). */
export async function mintVisible(db: Sql, tenantId: number, mint: string): Promise<boolean> {
  return (await db.get(assetSql.visible, { tenantId, mint })) !== null;
}

/** The instruments this tenant may see (see tables/assets.ts), with the multiplier in force. */
export async function listAssets(db: Sql, tenantId: number, nowSeconds = Math.floor(Date.now() / 1000)) {
  const rows = await db.all(assetSql.visibleInstruments, { tenantId });
  return rows.map((r) => {
    // The multiplier in force is the new one once its timestamp has passed (docs/scaled-ui-amount.md#the-multiplier-in-force).
    const inForce = r.multiplier === null ? null : r.new_multiplier_effective_ts !== null && nowSeconds >= r.new_multiplier_effective_ts ? r.new_multiplier! : r.multiplier;
    return {
      mint: r.mint,
      symbol: r.symbol,
      name: r.name,
      underlying: r.underlying,
      isin: r.isin,
      decimals: r.decimals,
      multiplier: inForce === null ? null : f64ToDecimal(Number(inForce)),
      updatedAt: r.updated_at,
      source: r.source,
      uri: r.uri,
    };
  });
}

/** Which of these mints the issuer feed's asset list covers (its records reach them through its symbols), with the feed's symbol. */
export async function feedCoveredMints(db: Sql, mints: string[]): Promise<{ mint: string; symbol: string }[]> {
  return db.all(instrumentSql.feedCovered, { mints });
}
