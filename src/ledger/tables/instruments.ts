// Instruments: the issuer feed's (`xstocks`), or a mint's own metadata (`token-metadata`).
import type { InstrumentObs, InstrumentSource } from "../../domain/observations.ts";
import { inList, query, sql, statements } from "../sql/statement.ts";

export interface InstrumentRow {
  mint: string;
  symbol: string;
  name: string | null;
  underlying: string | null;
  isin: string | null;
  decimals: number | null;
  updated_at: string;
  row_sha256: string | null;
  source: InstrumentSource;
  uri: string | null;
}

type EngineRow = Pick<InstrumentRow, "mint" | "symbol" | "name" | "underlying" | "isin" | "decimals" | "source" | "uri">;

/** An instrument as the engine reads it: a metadata row keeps its `uri`. */
export const instrumentFromRow = ({ uri, ...i }: EngineRow): InstrumentObs => (i.source === "token-metadata" ? { ...i, uri } : i);

const engineColumns = sql`SELECT mint, symbol, name, underlying, isin, decimals, source, uri FROM instruments`;

export const instrumentSql = statements("instruments", {
  /**
   * The issuer feed's row replaces a token-metadata one; a token-metadata row never replaces the
   * feed's. Changes nothing (0 rows) when nothing differs.
   */
  upsert: query<EngineRow & { at: string }>(
    (p) =>
      sql`INSERT INTO instruments (mint, symbol, name, underlying, isin, decimals, updated_at, source, uri) VALUES (${p.mint}, ${p.symbol}, ${p.name}, ${p.underlying}, ${p.isin}, ${p.decimals}, ${p.at}, ${p.source}, ${p.uri})
     ON CONFLICT(mint) DO UPDATE SET symbol = excluded.symbol, name = excluded.name, underlying = coalesce(excluded.underlying, instruments.underlying),
     isin = coalesce(excluded.isin, instruments.isin), decimals = coalesce(excluded.decimals, instruments.decimals), updated_at = excluded.updated_at,
     source = excluded.source, uri = excluded.uri
     WHERE (excluded.source = 'xstocks' OR instruments.source = 'token-metadata')
       AND (instruments.symbol IS DISTINCT FROM excluded.symbol OR instruments.name IS DISTINCT FROM excluded.name
        OR instruments.underlying IS DISTINCT FROM coalesce(excluded.underlying, instruments.underlying)
        OR instruments.isin IS DISTINCT FROM coalesce(excluded.isin, instruments.isin) OR instruments.decimals IS DISTINCT FROM coalesce(excluded.decimals, instruments.decimals)
        OR instruments.source IS DISTINCT FROM excluded.source OR instruments.uri IS DISTINCT FROM excluded.uri)`,
  ),
  /** The mints the issuer feed lists under a symbol. */
  feedMintsOfSymbol: query<{ symbol: string }, { mint: string }>((p) => sql`SELECT mint FROM instruments WHERE symbol = ${p.symbol} AND source = 'xstocks'`),
  forEngine: query<Record<never, never>, EngineRow>(() => sql`${engineColumns} ORDER BY mint`),
  forEngineOf: query<{ mints: readonly string[] }, EngineRow>((p) => sql`${engineColumns} WHERE mint IN ${inList(p.mints)} ORDER BY mint`),
  identity: query<{ mint: string }, Pick<InstrumentRow, "symbol" | "underlying" | "isin" | "updated_at">>(
    (p) => sql`SELECT symbol, underlying, isin, updated_at FROM instruments WHERE mint = ${p.mint}`,
  ),
  /** Which of these mints the issuer feed lists, with the feed's symbol. */
  feedCovered: query<{ mints: readonly string[] }, { mint: string; symbol: string }>(
    (p) => sql`SELECT mint, symbol FROM instruments WHERE source = 'xstocks' AND mint IN ${inList(p.mints)} ORDER BY symbol, mint`,
  ),
});
