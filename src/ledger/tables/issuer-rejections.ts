// The rows the issuer's feed sent that were refused, kept (bounded) with the reason.
import { query, sql, statements } from "../sql/statement.ts";

export const issuerRejectionSql = statements("issuer_rejections", {
  insert: query<{ source: string; payload: string; reason: string; at: string }>(
    (p) => sql`INSERT INTO issuer_rejections (source, payload, reason, received_at) VALUES (${p.source}, ${p.payload}, ${p.reason}, ${p.at})`,
  ),
});
