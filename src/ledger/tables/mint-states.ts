// Each mint's Token-2022 state (decimals, authority, multipliers), stored when it changes.
import type { MintStateObs } from "../../domain/observations.ts";
import { inList, query, sql, statements } from "../sql/statement.ts";

export interface MintStateRow {
  id: number;
  mint: string;
  slot: number;
  decimals: number;
  authority: string | null;
  multiplier: string;
  new_multiplier: string;
  new_multiplier_effective_ts: number;
  observed_at: number;
  row_sha256: string | null;
}

function mintDecimals(r: Pick<MintStateRow, "mint" | "slot" | "decimals">): number {
  const d = Number(r.decimals);
  if (!Number.isInteger(d) || d < 0 || d > 255) throw new Error(`mint_states ${r.mint} at slot ${r.slot}: decimals ${r.decimals} is not a mint's (0 to 255)`);
  return d;
}

type StateColumns = Pick<MintStateRow, "mint" | "slot" | "decimals" | "authority" | "multiplier" | "new_multiplier" | "new_multiplier_effective_ts" | "observed_at">;

/**
 * A stored state as the engine reads it. Decimals are the mint's u8: a row holding anything else
 * was damaged, and is refused here rather than handed on (10^16777224 is no unit of account, and
 * the engine would work with it for as long as it took).
 */
export const mintStateFromRow = (r: StateColumns): MintStateObs => ({
  mint: r.mint,
  slot: r.slot,
  decimals: mintDecimals(r),
  multiplierAuthority: r.authority,
  multiplier: Number(r.multiplier),
  newMultiplier: Number(r.new_multiplier),
  newMultiplierEffectiveTimestamp: r.new_multiplier_effective_ts,
  observedAt: r.observed_at,
});

const latestOfEach = sql`SELECT mint, slot, decimals, authority, multiplier, new_multiplier, new_multiplier_effective_ts, observed_at FROM mint_states s
     WHERE slot = (SELECT max(slot) FROM mint_states WHERE mint = s.mint)`;

export const mintStateSql = statements("mint_states", {
  latest: query<{ mint: string }, Omit<StateColumns, "mint" | "observed_at">>(
    (p) => sql`SELECT slot, decimals, authority, multiplier, new_multiplier, new_multiplier_effective_ts FROM mint_states WHERE mint = ${p.mint} ORDER BY slot DESC LIMIT 1`,
  ),
  insert: query<{ mint: string; slot: number; decimals: number; authority: string | null; multiplier: string; newMultiplier: string; effectiveTs: number; observedAt: number }>(
    (p) =>
      sql`INSERT INTO mint_states (mint, slot, decimals, authority, multiplier, new_multiplier, new_multiplier_effective_ts, observed_at)
     VALUES (${p.mint}, ${p.slot}, ${p.decimals}, ${p.authority}, ${p.multiplier}, ${p.newMultiplier}, ${p.effectiveTs}, ${p.observedAt}) ON CONFLICT DO NOTHING`,
  ),
  /** The latest state of every mint. */
  forEngine: query<Record<never, never>, StateColumns>(() => sql`${latestOfEach} ORDER BY mint`),
  forEngineOf: query<{ mints: readonly string[] }, StateColumns>((p) => sql`${latestOfEach} AND mint IN ${inList(p.mints)} ORDER BY mint`),
});
