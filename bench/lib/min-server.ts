// The minimum work for each benchmarked route, as a child process of bench/http.ts:
//   bun bench/lib/min-server.ts <ledger.db> <sqlPort> <constPort> <constants.json>
// On sqlPort, a bare Bun.serve handler runs the route's SQL through raw bun:sqlite prepared
// statements (the same statements as src/ledger/queries/*.ts) on the same file, splices each
// action's event template with its wallet's values (src/ledger/action-rows.ts), parses the JSON
// and JSON.stringify's the same page. No auth, no validation, no framework. The lots, gains and
// holdings routes store nothing derived: their minimum is the same reads and the same pure
// derivation (src/ledger/read/lot-report.ts, src/domain/lots) and the same body, called directly
// over the ledger's own connection, so the ratio is what our HTTP stack adds to that work. On
// constPort, the bytes our server answered for the same request are served as a constant (the
// HTTP ceiling of this machine). Prints "ready" when both listen.
import { Database } from "bun:sqlite";
import { dirname } from "node:path";
import { DEFAULT_STABLECOINS } from "../../src/domain/lots/index.ts";
import { type Dataset, gainsBody, holdingsBody, lotsBody } from "../../src/domain/lots/present.ts";
import { splice, storedValues, type StoredWallet } from "../../src/ledger/action-rows.ts";
import { hashColumn } from "../../src/ledger/sql/hash-bytes.ts";
import { adHocQuery, ident, sql, type SqlFragment, textFor } from "../../src/ledger/sql/statement.ts";
import { entryRead } from "../../src/ledger/tables/journal.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { tenantLotReport } from "../../src/ledger/read/lot-report.ts";
import { json, minimumPortfolio } from "./min-portfolio.ts";

const [dbPath, sqlPort, constPort, constantsPath] = process.argv.slice(2);
const db = new Database(dbPath!, { readonly: true, strict: true });
const ledger = await openLedger({ dataDir: dirname(dbPath!), databaseUrl: null }, { migrate: false });
const tenantOf = db.query("SELECT tenant_id FROM tenant_wallets WHERE owner = ? ORDER BY tenant_id LIMIT 1");
const choice = { method: "fifo", treatment: "income", stablecoins: DEFAULT_STABLECOINS } as const;
db.exec("PRAGMA busy_timeout = 5000");

const dataset = (db.query("SELECT kind, description FROM dataset_label WHERE id = 1").get() ?? { kind: "mainnet", description: null }) as Dataset;

// Same statements as src/ledger/queries/actions.ts, journal.ts and common.ts (the portfolio's: min-portfolio.ts).
const count = db.query("SELECT count(*) AS n FROM actions WHERE owner = ?");
// A hash is read as hex, and a journal amount that names the units as the units, by our own
// expressions (src/ledger/sql/hash-bytes.ts, src/ledger/tables/journal.ts), in SQLite's spelling.
const asSqlite = (f: SqlFragment) =>
  textFor(
    adHocQuery(() => f),
    "sqlite",
  );
const entry = (c: keyof typeof entryRead) => asSqlite(sql`${entryRead[c]} AS ${ident(c)}`);
const WALLET = `a.id, a.owner, ${asSqlite(hashColumn("evidence_sha256", "a"))}, a.usd, a.wallet_values`;
const page = db.query(`SELECT e.summary AS template, ${WALLET} FROM actions a JOIN action_events e ON e.id = a.event_id WHERE a.owner = ? ORDER BY a.effective_at DESC, a.id DESC LIMIT ? OFFSET ?`);
const one = db.query(`SELECT e.detail AS template, ${WALLET} FROM actions a JOIN action_events e ON e.id = a.event_id WHERE a.owner = ? AND a.id = ?`);
const v1Count = db.query("SELECT count(*) AS n FROM actions WHERE owner = ? AND v1_kind IS NOT NULL");
const v1Page = db.query(
  `SELECT e.v1_entry AS template, ${WALLET} FROM actions a JOIN action_events e ON e.id = a.event_id WHERE a.owner = ? AND a.v1_kind IS NOT NULL ORDER BY a.effective_at DESC, a.id DESC LIMIT ? OFFSET ?`,
);
type Stored = StoredWallet & { template: string };
const served = (r: Stored) => JSON.parse(splice(r.template, storedValues(r)));
const jcols = `id, owner, action_id, entry_type, reverses_id, mint, symbol, kind, units_delta, ${entry("principal_units_delta")}, ${entry("income_units")}, usd, effective_at, change_reason, ${entry("evidence_sha256")}, created_at`;
const journalFor = db.query(`SELECT ${jcols} FROM journal WHERE owner = ? AND action_id = ? ORDER BY id`);
const portfolio = minimumPortfolio(db);
const nextOffset = (offset: number, returned: number, total: number) => (returned > 0 && offset + returned < total ? offset + returned : null);

/** The lot routes, derived as src/http/routes/lots.ts derives them (the server's default method and treatment). */
async function lots(url: URL, owner: string): Promise<Response | null> {
  const tenantId = (tenantOf.get(owner) as { tenant_id: number }).tenant_id;
  const q = url.searchParams;
  if (url.pathname === "/v2/lots") {
    const asOf = q.get("asOf") ?? new Date().toISOString().slice(0, 10);
    const { report, names } = await tenantLotReport(ledger.db, tenantId, { ...choice, asOf, wallets: [owner] });
    return json(lotsBody(report, { owner, asOf, dataset }, names));
  }
  if (url.pathname === "/v2/reports/gains") {
    const year = Number(q.get("year"));
    const { report, names } = await tenantLotReport(ledger.db, tenantId, { ...choice, from: `${year}-01-01`, asOf: `${year}-12-31`, wallets: [owner] });
    return json(gainsBody(report, { year, owners: [owner], dataset, conversion: null }, names));
  }
  if (url.pathname === "/v2/reports/holdings") {
    const asOf = q.get("asOf")!;
    const from = q.get("from") ?? `${asOf.slice(0, 4)}-01-01`;
    const { report, names } = await tenantLotReport(ledger.db, tenantId, { ...choice, from, asOf, wallets: [owner] });
    return json(holdingsBody(report, { asOf, from, owners: [owner], dataset }, names));
  }
  return null;
}

function handle(url: URL): Response | Promise<Response> {
  const owner = url.searchParams.get("owner") ?? "";
  if (!portfolio.registered(owner)) return json({ error: "not registered", code: "wallet_not_registered" });
  const limit = Number(url.searchParams.get("limit") ?? 50),
    offset = Number(url.searchParams.get("offset") ?? 0);
  const path = url.pathname;
  if (path.startsWith("/v2/lots") || path.startsWith("/v2/reports/")) return lots(url, owner).then((r) => r ?? new Response("no", { status: 404 }));
  if (path === "/v1/income") {
    const total = (v1Count.get(owner) as { n: number }).n;
    const rows = v1Page.all(owner, limit, offset) as Stored[];
    return json({ owner, dataset, entries: rows.map(served), total, nextOffset: nextOffset(offset, rows.length, total) });
  }
  if (path === "/v2/actions") {
    const total = (count.get(owner) as { n: number }).n;
    const rows = page.all(owner, limit, offset) as Stored[];
    return json({ owner, dataset, actions: rows.map(served), total, nextOffset: nextOffset(offset, rows.length, total) });
  }
  if (path.startsWith("/v2/actions/")) {
    const row = one.get(owner, path.slice("/v2/actions/".length)) as Stored | null;
    if (!row) return json({ error: "no", code: "not_found" });
    const a = served(row);
    return json({ ...a, dataset, journal: journalFor.all(owner, a.id) });
  }
  if (path === "/v1/portfolio") return portfolio.answer(owner, dataset);
  if (path === "/v1/health") return json({ status: "ok" });
  return new Response("no", { status: 404 });
}

Bun.serve({ port: Number(sqlPort), hostname: "127.0.0.1", fetch: (req) => handle(new URL(req.url)) });

// Constant bytes: path+query -> body our server answered.
const constants = new Map(Object.entries((await Bun.file(constantsPath!).json()) as Record<string, string>));
Bun.serve({
  port: Number(constPort),
  hostname: "127.0.0.1",
  fetch(req) {
    const u = req.url;
    const body = constants.get(u.slice(u.indexOf("/", 8)));
    return body === undefined ? new Response("{}", { status: 404 }) : new Response(body, { headers: { "content-type": "application/json;charset=utf-8" } });
  },
});
console.log("ready");
