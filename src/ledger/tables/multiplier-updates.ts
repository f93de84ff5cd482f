// Multiplier updates the chain recorded (UpdateMultiplierScaledUiMint instructions).
import type { MultiplierUpdateObs } from "../../domain/observations.ts";
import { inList, query, sql, statements } from "../sql/statement.ts";

export interface MultiplierUpdateRow {
  signature: string;
  ix_index: number;
  mint: string;
  slot: number;
  block_time: number;
  multiplier: string;
  effective_ts: number;
  authority: string;
  row_sha256: string | null;
}

type UpdateColumns = Omit<MultiplierUpdateRow, "row_sha256">;

export const updateFromRow = (r: UpdateColumns): MultiplierUpdateObs => ({
  signature: r.signature,
  ixIndex: r.ix_index,
  mint: r.mint,
  slot: r.slot,
  blockTime: r.block_time,
  multiplier: Number(r.multiplier),
  effectiveTimestamp: r.effective_ts,
  authority: r.authority,
});

const columns = sql`SELECT signature, ix_index, mint, slot, block_time, multiplier, effective_ts, authority FROM multiplier_updates`;

export const multiplierUpdateSql = statements("multiplier_updates", {
  insert: query<{ signature: string; ixIndex: number; mint: string; slot: number; blockTime: number; multiplier: string; effectiveTs: number; authority: string }>(
    (p) =>
      sql`INSERT INTO multiplier_updates (signature, ix_index, mint, slot, block_time, multiplier, effective_ts, authority)
     VALUES (${p.signature}, ${p.ixIndex}, ${p.mint}, ${p.slot}, ${p.blockTime}, ${p.multiplier}, ${p.effectiveTs}, ${p.authority}) ON CONFLICT DO NOTHING`,
  ),
  forEngine: query<Record<never, never>, UpdateColumns>(() => sql`${columns} ORDER BY mint, slot, signature, ix_index`),
  forEngineOf: query<{ mints: readonly string[] }, UpdateColumns>((p) => sql`${columns} WHERE mint IN ${inList(p.mints)} ORDER BY mint, slot, signature, ix_index`),
  /** A sync checks each mint against its whole known history, oldest first. */
  historyOf: query<{ mints: readonly string[] }, UpdateColumns>((p) => sql`${columns} WHERE mint IN ${inList(p.mints)} ORDER BY slot, block_time, signature, ix_index`),
});
