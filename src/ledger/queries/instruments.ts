// Taxonomy (always all 18 types, validation from the stored census) and lineage reads.
import type { Database } from "bun:sqlite";
import { computeCensus } from "../../domain/taxonomy.ts";
import type { ActionType, LineageRecord, TaxonomyEntry } from "../../domain/types.ts";

const EMPTY_VALIDATIONS = new Map(computeCensus([]).map((e) => [e.type, JSON.stringify(e.validation)] as const));

export function instrumentQueries(sqlite: Database) {
  const census = sqlite.query("SELECT payload FROM taxonomy_census");
  const validation = sqlite.query("SELECT type, json_extract(payload, '$.validation') AS v FROM taxonomy_census");
  const dataVersion = sqlite.query("PRAGMA data_version");
  let cached: { version: number; map: Map<ActionType, string> } | null = null;
  const lineage = sqlite.query("SELECT payload FROM lineage WHERE mint = ?");
  const instrument = sqlite.query("SELECT symbol, underlying, isin, updated_at FROM instruments WHERE mint = ?");
  const taxonomy = (): TaxonomyEntry[] => {
    const stored = new Map((census.all() as { payload: string }[]).map((r) => {
      const e = JSON.parse(r.payload) as TaxonomyEntry;
      return [e.type, e] as const;
    }));
    // A fresh ledger has no census yet: the empty census still lists every type.
    return computeCensus([]).map((empty) => stored.get(empty.type) ?? empty);
  };
  return {
    taxonomy,
    /**
     * Each type's validation as JSON text, ready to splice into stored action JSON. Read on every
     * v2 list and detail: the census rows' validation is taken by SQLite (json_extract), without
     * parsing the census payloads, over the fixed answer of an empty census.
     */
    validations(): Map<ActionType, string> {
      // Read again only after some connection committed (PRAGMA data_version changes then):
      // between syncs it is one tiny pragma per request, measured on the detail route.
      const version = (dataVersion.get() as { data_version: number }).data_version;
      if (cached?.version === version) return cached.map;
      const map = new Map(EMPTY_VALIDATIONS);
      for (const r of validation.all() as { type: ActionType; v: string }[]) map.set(r.type, r.v);
      cached = { version, map };
      return map;
    },
    lineage(mint: string): (LineageRecord & { symbol: string | null }) | null {
      const row = lineage.get(mint) as { payload: string } | null;
      const inst = instrument.get(mint) as { symbol: string; underlying: string | null; isin: string | null; updated_at: string } | null;
      if (row) return { ...(JSON.parse(row.payload) as LineageRecord), symbol: inst?.symbol ?? null };
      if (!inst) return null;
      // Known instrument with no recorded change of identity: its one identity holds all basis.
      return {
        mint, symbol: inst.symbol,
        identities: [{ symbol: inst.symbol, underlying: inst.underlying, isin: inst.isin, validFrom: null }],
        links: [],
        basisNowSits: [{ holding: inst.symbol, kind: "position", fraction: "1" }],
      };
    },
  };
}
