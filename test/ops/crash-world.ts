// What the crash tests share (crash.test.ts on SQLite, test/postgres/crash.pg.ts with two servers
// on PostgreSQL): the world moving on between kills (dividends on chain with their issuer
// records, corrections), starting the binary, and what the ledger must settle to: the standing
// recognitions and income of a clean rebuild from the same observations. Everything read
// through the port, so one rule serves both engines.
import { openLedger } from "../../src/ledger/db.ts";
import { rebookEverything } from "../../src/ledger/booking.ts";
import { wholeTableSql } from "../../src/ledger/tables/whole-tables.ts";
import type { Sql } from "../../src/ledger/sql/port.ts";
import { issuerRecord } from "../support/issuer-records.ts";
import type { IssuerServer } from "../support/issuer-server.ts";
import type { WalletScenario } from "../support/wallet-chain.ts";
import { tempDir } from "./helpers.ts";
import { q, raw } from "../support/sql.ts";

/** A cash dividend on chain (multiplier update, activated in the past) and its issuer record. */
export function addDividend(s: WalletScenario, issuer: IssuerServer, k: number, from: number): { eventId: string; multiplier: number } {
  const to = from * (1 + 0.001 + k / 10_000);
  const effective = 1_790_000_000 + k * 3 * 86_400; // 2026-09-21 onwards, all before today
  s.addUpdate(to, effective);
  const eventId = `crash-test-${k}`;
  issuer.data.history.push(
    issuerRecord({
      eventId,
      xstockSymbol: "HONx",
      spvSymbol: "HON",
      caType: "CashDividend",
      at: effective,
      multiplierOld: from,
      multiplierNew: to,
      grossCashflowUsd: "0.7",
      netCashflowUsd: "0.49",
      withholdingTaxRate: "0.3",
      xstockIsin: "CH1436219583",
      spvIsin: "US4385161066",
    }),
  );
  return { eventId, multiplier: to };
}

/**
 * The world between two kills: a new dividend on chain with its issuer record, a correction of an
 * earlier record, or a new transfer (or nothing), drawn from `random`, so restarts meet re-bookings.
 */
export function movingWorld(s: WalletScenario, issuer: IssuerServer, random: () => number) {
  const events: string[] = [];
  let multiplier = 1.0011576563945983; // HONx's multiplier after its last recorded step
  return {
    events,
    step(): void {
      const r = random();
      if (r < 0.25 && events.length < 12) {
        const d = addDividend(s, issuer, events.length, multiplier);
        events.push(d.eventId);
        multiplier = d.multiplier;
      } else if (r < 0.55 && events.length) {
        correct(issuer, events[Math.floor(random() * events.length)]!, random);
      } else if (r < 0.65) {
        s.addTransfer(BigInt(1 + Math.floor(random() * 1e6)));
      }
    },
  };
}

/** An issuer correction: a new version of the record with another cash figure (re-booking). */
export function correct(issuer: IssuerServer, eventId: string, random: () => number): void {
  const versions = issuer.data.history.filter((r) => r.eventId === eventId);
  const top = versions[versions.length - 1];
  const gross = (0.5 + Math.floor(random() * 50) / 100).toFixed(2);
  issuer.data.history.push({ ...top, version: top.version + 1, grossCashflowUsd: gross, netCashflowUsd: (Number(gross) * 0.7).toFixed(3), status: "Updated" });
}

export interface Serving {
  proc: ReturnType<typeof Bun.spawn>;
  url: string;
}

/** A port the OS just handed out (bound to port 0, then released). */
function freePort(): number {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

/** `ca-ledger serve` from the binary, once it answers health. */
export async function serve(bin: string, dataDir: string, env: Record<string, string>, log: string): Promise<Serving> {
  // Another socket can take a probed port before the server binds it; that start exits 1
  // ("port in use") at once, so try another port a few times. Any other failure repeats.
  for (let attempt = 1; ; attempt++) {
    const port = freePort();
    const proc = Bun.spawn([bin, "serve", "--data-dir", dataDir, "--port", String(port)], { env, stdout: "ignore", stderr: Bun.file(log) });
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 400 && proc.exitCode === null; i++) {
      try {
        if ((await fetch(`${url}/v1/health`)).status === 200) return { proc, url };
      } catch {}
      await Bun.sleep(10);
    }
    if (proc.exitCode === null) throw new Error("serve did not start");
    if (attempt >= 5) throw new Error(`serve exited ${proc.exitCode} on ${attempt} ports`);
  }
}

/** Dirty marks left by a kill: observations stored whose booking had not finished. */
export async function pendingBooking(db: Sql): Promise<boolean> {
  try {
    return (await db.get(...q<{ n: number }>`SELECT (SELECT count(*) FROM dirty_wallets) + (SELECT count(*) FROM dirty_mints) AS n`))!.n > 0;
  } catch {
    return false; // killed before the first migration
  }
}

export async function jobStates(db: Sql): Promise<Record<string, number>> {
  return Object.fromEntries((await db.all(...q<{ status: string; n: number }>`SELECT status, count(*) AS n FROM sync_jobs GROUP BY status`)).map((r) => [r.status, r.n]));
}

export interface Standing {
  rows: { id: number; owner: string; action_id: string; payload: string }[];
  income: { owner: string; usd: string }[];
}

/** Standing recognitions per owner × action, and each owner's income figures, as the journal holds them. */
export async function standing(db: Sql): Promise<Standing> {
  const rows = await db.all(
    ...q<Standing["rows"][number]>`SELECT id, owner, action_id, payload FROM journal j WHERE entry_type = 'recognition'
     AND NOT EXISTS (SELECT 1 FROM journal r WHERE r.reverses_id = j.id) ORDER BY id`,
  );
  const figures = new Map<string, string[]>();
  for (const r of await db.all(...q<{ owner: string; usd: string }>`SELECT owner, usd FROM journal WHERE treatment = 'income' AND usd IS NOT NULL ORDER BY id`)) {
    figures.set(r.owner, [...(figures.get(r.owner) ?? []), r.usd]);
  }
  return { rows, income: [...figures].map(([owner, usd]) => ({ owner, usd: usd.join(" ") })) };
}

/** The observations a clean rebuild starts from (everything booking derives is left behind). */
const OBSERVATIONS = ["tenants", "tenant_wallets", "instruments", "issuer_revisions", "mint_states", "multiplier_updates", "token_accounts", "balance_changes", "wallet_gaps", "transitions_seen"];

/** A fresh SQLite ledger holding only `from`'s observations, replayed once: the clean rebuild. */
export async function cleanRebuild(from: Sql): Promise<Standing> {
  const fresh = await openLedger(tempDir("cal-rebuild-"));
  try {
    await fresh.db.write(async (tx) => {
      for (const t of OBSERVATIONS) await tx.run(wholeTableSql.insert[t]!, { rows: await from.all(wholeTableSql.rows[t]!) });
    });
    await rebookEverything(fresh.db);
    return await standing(fresh.db);
  } finally {
    await fresh.close();
  }
}

/** A list of decimal figures summed exactly: every figure scaled to 18 decimals as a bigint. */
export function sumDecimals(list: string): string {
  const total = list.split(" ").reduce((acc, s) => {
    const [i, f = ""] = s.replace("-", "").split(".");
    const v = BigInt(i! + f.padEnd(18, "0").slice(0, 18));
    return acc + (s.startsWith("-") ? -v : v);
  }, 0n);
  return total.toString();
}
