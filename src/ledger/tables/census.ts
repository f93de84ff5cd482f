// The chain transitions matched to an issuer record, per mint (replaced when the mint is booked),
// and the taxonomy census summed from every mint's.
import type { CensusInstance } from "../../domain/types.ts";
import { inList, jsonText, query, sql, statements } from "../sql/statement.ts";

export interface CensusInstanceRow {
  transition_key: string;
  mint: string;
  type: CensusInstance["type"];
  event_id: string;
  version: number;
  reconciled: number;
}

export const censusInstanceFromRow = (r: CensusInstanceRow): CensusInstance => ({
  transitionKey: r.transition_key,
  mint: r.mint,
  type: r.type,
  eventId: r.event_id,
  version: r.version,
  reconciled: r.reconciled === 1,
});

const instanceColumns = sql`SELECT transition_key, mint, type, event_id, version, reconciled FROM census_instances`;

export const censusSql = statements("census", {
  deleteOfMints: query<{ mints: readonly string[] }>((p) => sql`DELETE FROM census_instances WHERE mint IN ${inList(p.mints)}`),
  insert: query<{ transitionKey: string; mint: string; type: string; eventId: string; version: number; reconciled: boolean }>(
    (p) =>
      sql`INSERT INTO census_instances (transition_key, mint, type, event_id, version, reconciled) VALUES (${p.transitionKey}, ${p.mint}, ${p.type}, ${p.eventId}, ${p.version}, ${p.reconciled}) ON CONFLICT DO NOTHING`,
  ),
  /** In the order the taxonomy is summed in. */
  instances: query<Record<never, never>, CensusInstanceRow>(() => sql`${instanceColumns} ORDER BY mint, transition_key`),
  instancesOf: query<{ mints: readonly string[] }, CensusInstanceRow>((p) => sql`${instanceColumns} WHERE mint IN ${inList(p.mints)} ORDER BY mint, transition_key`),
  /** A type's entry, written only when it changed. */
  upsertType: query<{ type: string; payload: string; at: string }>(
    (p) => sql`INSERT INTO taxonomy_census (type, payload, updated_at) VALUES (${p.type}, ${p.payload}, ${p.at})
    ON CONFLICT(type) DO UPDATE SET payload = excluded.payload, updated_at = excluded.updated_at WHERE taxonomy_census.payload IS DISTINCT FROM excluded.payload`,
  ),
  types: query<Record<never, never>, { payload: string }>(() => sql`SELECT payload FROM taxonomy_census`),
  /** Each type's validation as JSON text, taken by the database without parsing the payloads. */
  validations: query<Record<never, never>, { type: CensusInstance["type"]; v: string }>(() => sql`SELECT type, ${jsonText(sql`payload`, "validation")} AS v FROM taxonomy_census`),
  keyedTypes: query<Record<never, never>, { k: string; v: string }>(() => sql`SELECT type AS k, payload AS v FROM taxonomy_census`),
});
