// Taxonomy (always all 18 types, validation from the stored census) and lineage reads.
import { EMPTY_VALIDATIONS } from "../action-item.ts";
import { censusVersion } from "../sql/dialect.ts";
import type { Sql } from "../sql/port.ts";
import { censusSql } from "../tables/census.ts";
import { instrumentSql } from "../tables/instruments.ts";
import { lineageSql } from "../tables/lineage.ts";
import { computeCensus } from "../../domain/taxonomy.ts";
import type { ActionType, LineageRecord, TaxonomyEntry } from "../../domain/types.ts";

export function instrumentQueries(db: Sql) {
  let cached: { version: string; map: Map<ActionType, string> } | null = null;
  const taxonomy = async (): Promise<TaxonomyEntry[]> => {
    const stored = new Map(
      (await db.all(censusSql.types)).map((r) => {
        const e = JSON.parse(r.payload) as TaxonomyEntry;
        return [e.type, e] as const;
      }),
    );
    // A fresh ledger has no census yet: the empty census still lists every type.
    return computeCensus([]).map((empty) => stored.get(empty.type) ?? empty);
  };
  return {
    taxonomy,
    /**
     * Each type's validation as JSON text, ready to splice into stored action JSON. Read on every
     * v2 list and detail: the census rows' validation is taken by the database (json_extract),
     * without parsing the census payloads, over the fixed answer of an empty census.
     */
    async validations(on: Sql = db): Promise<Map<ActionType, string>> {
      // Read again only once the census may have changed (see censusVersion): between syncs it is
      // one tiny read per request, measured on the detail route. `on`: a transaction of `db`'s.
      const version = await censusVersion(on);
      if (cached?.version === version) return cached.map;
      const map = new Map(EMPTY_VALIDATIONS);
      for (const r of await on.all(censusSql.validations)) map.set(r.type, r.v);
      cached = { version, map };
      return map;
    },
    async lineage(mint: string): Promise<(LineageRecord & { symbol: string | null }) | null> {
      const row = await db.get(lineageSql.ofMint, { mint });
      const inst = await db.get(instrumentSql.identity, { mint });
      if (row) return { ...(JSON.parse(row.payload) as LineageRecord), symbol: inst?.symbol ?? null };
      if (!inst) return null;
      // Known instrument with no recorded change of identity: its one identity holds all basis.
      return {
        mint,
        symbol: inst.symbol,
        identities: [{ symbol: inst.symbol, underlying: inst.underlying, isin: inst.isin, validFrom: null }],
        links: [],
        basisNowSits: [{ holding: inst.symbol, kind: "position", fraction: "1" }],
      };
    },
  };
}
