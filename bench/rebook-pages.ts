// bench/rebook-pages: where a re-booking's writes go, page by page. On a copy of a ledger that
// bench/scale kept (`--keep` prints its data dir), stores one corrected HONx dividend record and
// books every wallet it makes dirty, in this process through the ledger's own booking, with
// checkpoints held back: every page written stays in the WAL, and each frame is named by the table
// or index its page belongs to (SQLite's dbstat). Prints frames and distinct pages per re-booked
// wallet, per table; `--written` instead lets checkpoints run and prints the bytes handed to
// write() (/proc/self/io), the checkpoint that empties the WAL included, and the CPU time the
// process took to store the record and re-book (less moved by other work on the machine than the
// time it took). docs/storage.md cites it.
//
//   ./node_modules/.bin/bun bench/rebook-pages.ts <data dir kept by bench/scale> [--written]
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { IssuerRecord } from "../src/domain/observations.ts";
import { bookEverythingDirty } from "../src/ledger/booking.ts";
import { ledgerPath, openLedger, sqliteOf } from "../src/ledger/db.ts";
import { storeObservations } from "../src/ledger/store.ts";
import { walPages } from "../test/support/wal.ts";

const [source] = process.argv.slice(2).filter((a) => !a.startsWith("--"));
if (!source) throw new Error("usage: bun bench/rebook-pages.ts <data dir kept by bench/scale> [--written]");
const written = process.argv.includes("--written");
const dir = mkdtempSync(join(tmpdir(), "cal-rebook-pages-"));
cpSync(join(source, "ledger.db"), join(dir, "ledger.db"));
const l = await openLedger(dir);
const db = sqliteOf(l);
try {
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  if (!written) db.exec("PRAGMA wal_autocheckpoint = 0");
  // The newest HONx dividend record, corrected: a new version with its net a tenth of a cent higher.
  const records = (db.query("SELECT payload FROM issuer_revisions ORDER BY id").all() as { payload: string }[])
    .map((r) => JSON.parse(r.payload) as IssuerRecord)
    .filter((r) => r.xstockSymbol === "HONx" && r.caType === "CashDividend");
  const base = records.at(-1)!;
  const version = Math.max(...records.filter((r) => r.eventId === base.eventId).map((r) => r.version)) + 1;
  const corrected = { ...base, version, netCashflowUsd: (Number(base.netCashflowUsd ?? "0.5") + 0.001).toFixed(6), status: "Corrected" };
  const io = () => Number(/wchar: (\d+)/.exec(readFileSync("/proc/self/io", "utf8"))![1]);
  const now = new Date();
  const before = io();
  const cpu = process.cpuUsage();
  await l.db.write((tx) => storeObservations(tx, { issuerRecords: [corrected] }, now));
  const chunks = await bookEverythingDirty(l.db, now);
  const { user, system } = process.cpuUsage(cpu);
  const booked = chunks.filter((c) => c.kind === "wallets").reduce((n, c) => n + c.booked, 0);
  if (written) {
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    console.log(`wallets re-booked ${booked} in ${chunks.length} chunks; written ${((io() - before) / 2 ** 20).toFixed(1)} MiB; CPU ${((user + system) / 1000).toFixed(0)} ms`);
  } else {
    const pages = walPages(ledgerPath(dir));
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const tableOf = new Map((db.query("SELECT pageno, name FROM dbstat").all() as { pageno: number; name: string }[]).map((r) => [r.pageno, r.name]));
    const frames = new Map<string, number>();
    const distinct = new Map<string, Set<number>>();
    for (const p of pages) {
      const name = tableOf.get(p) ?? "(freed)";
      frames.set(name, (frames.get(name) ?? 0) + 1);
      distinct.set(name, (distinct.get(name) ?? new Set()).add(p));
    }
    const per = (n: number) => (n / booked).toFixed(2);
    console.log(`wallets re-booked ${booked} in ${chunks.length} chunks; frames ${per(pages.length)} a wallet on ${per(new Set(pages).size)} distinct pages`);
    for (const [name, n] of [...frames].sort((a, b) => b[1] - a[1])) if (n >= booked / 100) console.log(`  ${name.padEnd(36)} frames ${per(n)}  distinct ${per(distinct.get(name)!.size)}`);
  }
} finally {
  await l.close();
  rmSync(dir, { recursive: true, force: true });
}
