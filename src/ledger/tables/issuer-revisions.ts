// Issuer records as received (the issuer's feed or an operator's import), each revision hashed.
import type { IssuerRecord, IssuerRevisionObs, RecordSource } from "../../domain/observations.ts";
import { inList, query, sql, statements } from "../sql/statement.ts";

export interface IssuerRevisionRow {
  id: number;
  event_id: string;
  version: number;
  symbol: string;
  payload: string;
  payload_sha256: string;
  edited: number;
  ingested_at: string;
  row_sha256: string | null;
  source: RecordSource;
  mint: string | null;
}

type EngineRow = Pick<IssuerRevisionRow, "id" | "payload" | "payload_sha256" | "ingested_at" | "edited" | "source" | "mint">;

export const revisionFromRow = (r: EngineRow): IssuerRevisionObs => ({
  record: JSON.parse(r.payload) as IssuerRecord,
  sha256: r.payload_sha256,
  ingestedAt: r.ingested_at,
  edited: r.edited === 1,
  ...(r.source === "operator" ? { source: r.source, mint: r.mint } : {}),
});

const engineColumns = sql`id, payload, payload_sha256, ingested_at, edited, source, mint`;

export const issuerRevisionSql = statements("issuer_revisions", {
  hashesOf: query<{ eventId: string; version: number }, { payload_sha256: string }>((p) => sql`SELECT payload_sha256 FROM issuer_revisions WHERE event_id = ${p.eventId} AND version = ${p.version}`),
  insert: query<{ eventId: string; version: number; symbol: string; payload: string; sha256: string; edited: boolean; at: string; source: RecordSource; mint: string | null }>(
    (p) =>
      sql`INSERT INTO issuer_revisions (event_id, version, symbol, payload, payload_sha256, edited, ingested_at, source, mint)
     VALUES (${p.eventId}, ${p.version}, ${p.symbol}, ${p.payload}, ${p.sha256}, ${p.edited}, ${p.at}, ${p.source}, ${p.mint}) ON CONFLICT DO NOTHING`,
  ),
  forEngine: query<Record<never, never>, EngineRow>(() => sql`SELECT ${engineColumns} FROM issuer_revisions ORDER BY id`),
  /** The feed's revisions reach a mint through the symbol of an instrument it lists, an operator's through the mint it names. */
  forEngineOf: query<{ feedSymbols: readonly string[]; mints: readonly string[] }, EngineRow>(
    (p) =>
      sql`SELECT ${engineColumns} FROM issuer_revisions WHERE source = 'xstocks' AND symbol IN ${inList(p.feedSymbols)}
     UNION SELECT ${engineColumns} FROM issuer_revisions WHERE mint IN ${inList(p.mints)} ORDER BY id`,
  ),
  hashes: query<Record<never, never>, Pick<IssuerRevisionRow, "id" | "payload" | "payload_sha256">>(() => sql`SELECT id, payload, payload_sha256 FROM issuer_revisions ORDER BY id`),
  count: query<Record<never, never>, { n: number }>(() => sql`SELECT count(*) AS n FROM issuer_revisions`),
});
