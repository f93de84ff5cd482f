// Builds the 10,000-wallet ledger for bench/http.ts.
//
// How: the embedded demo is loaded into a scratch ledger through the real ingestion path
// (loadDemo: recorded transport → store → replayLedger), so every row below is real engine
// output. Its per-wallet rows (actions, journal, positions, yields) are then cloned as
// engine-shaped rows, directly in SQLite, to 10,000 synthetic owners, rewriting the owner and
// action ids inside the stored JSON. Every wallet gets 4 of the template's actions (with their
// journal entries) and all its positions; one "heavy" wallet gets 10 copies of all 20, so list
// pages of 50 are full. All 10,000 are registered (sync complete) for tenant "bench".
import { getBase58Decoder } from "@solana/kit";
import { refreshIncomeTotals } from "../../src/ledger/writers.ts";
import { createHash } from "node:crypto";
import { openLedger } from "../../src/ledger/db.ts";
import { loadDemo } from "../../src/demo/load.ts";
import { loadConfig } from "../../src/config.ts";

export interface BigLedger { dataDir: string; heavyOwner: string; heavyActionId: string; wallets: number; actions: number; journal: number; ms: number }

const base58 = (bytes: Uint8Array) => getBase58Decoder().decode(bytes);
function ownerFor(i: number): string {
  const b = createHash("sha256").update(`bench-owner-${i}`).digest();
  b[0] = b[0]! | 1;
  return base58(b);
}
const newId = (old: string, owner: string, copy: number) => "act_" + createHash("sha256").update(`${old}|${owner}|${copy}`).digest("hex").slice(0, 24);

export async function buildLedger10k(dataDir: string, wallets = 10_000): Promise<BigLedger> {
  const started = performance.now();
  const ledger = openLedger(dataDir);
  const { sqlite } = ledger;
  await loadDemo(ledger, new Date(), loadConfig({}, {}));
  sqlite.exec("PRAGMA synchronous = OFF");
  const template = (sqlite.query("SELECT owner, count(*) AS n FROM actions GROUP BY owner ORDER BY n DESC LIMIT 1").get() as { owner: string }).owner;
  const acts = sqlite.query("SELECT * FROM actions WHERE owner = ? ORDER BY effective_at, id").all(template) as Record<string, string | null>[];
  const jrows = sqlite.query("SELECT * FROM journal WHERE owner = ? ORDER BY id").all(template) as Record<string, string | number | null>[];
  const pos = sqlite.query("SELECT * FROM positions WHERE owner = ?").all(template) as Record<string, string>[];
  const yld = sqlite.query("SELECT * FROM yields WHERE owner = ?").get(template) as Record<string, string>;

  const insA = sqlite.query(`INSERT INTO actions (id, owner, mint, type, treatment, state, effective_at, usd, payload, summary, v1_entry, v1_kind, payload_sha256, evidence_sha256, first_observed_active_at, updated_at, detail)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)`);
  const insJ = sqlite.query(`INSERT INTO journal (owner, action_id, entry_type, reverses_id, mint, symbol, type, treatment, kind, units_delta, principal_units_delta,
    income_units, usd, factor, effective_at, change_reason, evidence_sha256, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insP = sqlite.query("INSERT INTO positions (owner, mint, payload, updated_at) VALUES (?, ?, ?, ?)");
  const insY = sqlite.query("INSERT INTO yields (owner, payload, updated_at) VALUES (?, ?, ?)");
  const insW = sqlite.query("INSERT INTO tenant_wallets (tenant_id, owner, registered_at) VALUES (?, ?, ?)");
  const insS = sqlite.query("INSERT INTO sync_jobs (tenant_id, owner, status, requested_at, started_at, finished_at, attempts, phase, progress_done, progress_total) VALUES (?, ?, 'complete', ?, ?, ?, 1, 'done', 1, 1)");
  const now = new Date().toISOString();
  sqlite.query("INSERT INTO tenants (slug, max_wallets, created_at) VALUES ('bench', ?, ?) ON CONFLICT(slug) DO NOTHING").run(wallets + 10, now);
  const tenantId = (sqlite.query("SELECT id FROM tenants WHERE slug = 'bench'").get() as { id: number }).id;

  const heavyOwner = ownerFor(0);
  let heavyActionId = "";
  let nActions = 0, nJournal = 0;
  const clone = (owner: string, picks: number[], copy: number) => {
    const rewrite = (s: string | null, ids: Map<string, string>) => {
      if (s === null) return null;
      let out = s.replaceAll(template, owner);
      for (const [o, n] of ids) out = out.replaceAll(o, n);
      return out;
    };
    const ids = new Map<string, string>();
    for (const i of picks) ids.set(acts[i]!.id!, newId(acts[i]!.id!, owner, copy));
    for (const i of picks) {
      const a = acts[i]!;
      const id = ids.get(a.id!)!;
      insA.run(id, owner, a.mint, a.type, a.treatment, a.state, a.effective_at, a.usd, rewrite(a.payload, ids), rewrite(a.summary, ids), rewrite(a.v1_entry, ids), a.v1_kind,
        a.payload_sha256, a.evidence_sha256, a.first_observed_active_at, a.updated_at, rewrite(a.detail, ids));
      nActions++;
      if (owner === heavyOwner && !heavyActionId) heavyActionId = id;
    }
    const jIds = new Map<number, number>();
    for (const j of jrows) {
      const id = ids.get(String(j.action_id));
      if (!id) continue;
      const reverses = j.reverses_id === null ? null : jIds.get(Number(j.reverses_id)) ?? null;
      const r = insJ.run(owner, id, j.entry_type, reverses, j.mint, j.symbol, j.type, j.treatment, j.kind, j.units_delta, j.principal_units_delta, j.income_units, j.usd,
        j.factor, j.effective_at, j.change_reason, j.evidence_sha256, rewrite(String(j.payload), ids), j.created_at);
      jIds.set(Number(j.id), Number(r.lastInsertRowid));
      nJournal++;
    }
  };
  sqlite.transaction(() => {
    for (let w = 0; w < wallets; w++) {
      const owner = ownerFor(w);
      if (w === 0) for (let copy = 0; copy < 10; copy++) clone(owner, acts.map((_, i) => i), copy);
      else clone(owner, [w % acts.length, (w + 5) % acts.length, (w + 10) % acts.length, (w + 15) % acts.length], 0);
      for (const p of pos) insP.run(owner, p.mint, p.payload!.replaceAll(template, owner), now);
      insY.run(owner, yld.payload!.replaceAll(template, owner), now);
      insW.run(tenantId, owner, now);
      insS.run(tenantId, owner, now, now, now);
    }
  }).immediate();
  // What a replay does after appending to the journal: sum each wallet's income from it.
  sqlite.transaction(() => refreshIncomeTotals(sqlite, Array.from({ length: wallets }, (_, w) => ownerFor(w)))).immediate();
  sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  ledger.close();
  return { dataDir, heavyOwner, heavyActionId, wallets, actions: nActions, journal: nJournal, ms: Math.round(performance.now() - started) };
}
