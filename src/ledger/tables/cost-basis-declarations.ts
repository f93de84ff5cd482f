// The operator's cost-basis declarations (docs/lots.md#declared-cost-basis): canonical JSON and its hash.
import type { CostBasisObservation } from "../../domain/lots/declarations.ts";
import { inList, query, sql, statements } from "../sql/statement.ts";

export interface CostBasisDeclarationRow {
  id: number;
  owner: string;
  payload: string;
  payload_sha256: string;
  source: string;
  imported_at: string;
}

export const declarationFromRow = (r: Pick<CostBasisDeclarationRow, "payload">): CostBasisObservation => JSON.parse(r.payload) as CostBasisObservation;

export const costBasisDeclarationSql = statements("cost_basis_declarations", {
  insert: query<{ owner: string; payload: string; payloadSha256: string; at: string }>(
    (p) =>
      sql`INSERT INTO cost_basis_declarations (owner, payload, payload_sha256, source, imported_at) VALUES (${p.owner}, ${p.payload}, ${p.payloadSha256}, 'operator', ${p.at}) ON CONFLICT DO NOTHING`,
  ),
  ofOwners: query<{ owners: readonly string[] }, Pick<CostBasisDeclarationRow, "payload">>((p) => sql`SELECT payload FROM cost_basis_declarations WHERE owner IN ${inList(p.owners)} ORDER BY id`),
  /** Every declaration, in stored order (verify). */
  all: query<Record<never, never>, Pick<CostBasisDeclarationRow, "id" | "owner" | "payload" | "payload_sha256">>(
    () => sql`SELECT id, owner, payload, payload_sha256 FROM cost_basis_declarations ORDER BY id`,
  ),
});
