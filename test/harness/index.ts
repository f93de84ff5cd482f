// Test harness: the real server on a loopback port 0 with a temp data dir, keys created
// directly in the ledger, ledger rows inserted as the engine would write them, and small HTTP
// and schema helpers. Nothing here depends on the domain engine or the sync worker.
import { getBase58Decoder } from "@solana/kit";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { startServer, type ServerHandle } from "../../src/server.ts";
import { allScopes, createKey, ensureTenant, type CreatedKey, type Scope } from "../../src/ledger/keys.ts";
import type { Db, Sql } from "../../src/ledger/sql/port.ts";
import { storePortfolios } from "../../src/ledger/portfolio-render.ts";
import { appendJournal, writeAction } from "../../src/ledger/writers.ts";
import { canonicalSha256 } from "../../src/domain/evidence.ts";
import type { ActionRecord, JournalBooking, PositionRecord, YieldRecord } from "../../src/domain/types.ts";
import { ledgerFlags } from "../support/engine.ts";
import { q } from "../support/sql.ts";

export { allScopes, type Scope };

export const repoRoot = join(import.meta.dir, "..", "..");

export function tempDir(prefix = "ca-ledger-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface TestServer extends ServerHandle {
  dataDir: string;
  db: Db;
  /** Creates a key directly in the ledger (the CLI's code path). */
  key(scopes?: readonly Scope[], tenant?: string, name?: string): Promise<CreatedKey>;
  close(): Promise<void>;
}

/**
 * Starts the real server (src/server.ts) on 127.0.0.1:0 with a fresh data dir. `env` overrides
 * settings (e.g. RATE_LIMIT_PER_MINUTE); defaults keep the limits out of the way of other tests.
 */
export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = tempDir();
  const handle = await startServer(
    { port: "0", host: "127.0.0.1", ...ledgerFlags(dataDir) },
    {
      env: { LOG_LEVEL: "error", RATE_LIMIT_PER_MINUTE: "100000", AUTH_FAILURES_PER_MINUTE: "100000", ...env },
      quiet: true,
      // No network here: the worker neither polls the issuer nor claims jobs, so sync jobs stay
      // as the tests leave them and the domain engine never rewrites the rows tests insert.
      offline: true,
    },
  );
  let n = 0;
  return Object.assign(handle, {
    dataDir,
    db: handle.ledger.db,
    key(scopes: readonly Scope[] = allScopes, tenant = "acme", name?: string) {
      return createKey(handle.ledger.db, { name: name ?? `test-${++n}`, tenant, scopes: [...scopes] });
    },
    async close() {
      await handle.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

// ---- addresses ---------------------------------------------------------------------------

/** Base58 text of raw bytes (a 32-byte array is an address). */
export const base58 = (bytes: Uint8Array): string => getBase58Decoder().decode(bytes);

/** A valid base58 Solana address (32 bytes), deterministic for a label. */
export function address(label: string): string {
  const bytes = createHash("sha256")
    .update("addr:" + label)
    .digest();
  bytes[0] = bytes[0]! | 1; // no leading zero byte, so always 43-44 characters
  return base58(bytes);
}

export function randomAddress(): string {
  const bytes = randomBytes(32);
  bytes[0] = bytes[0]! | 1;
  return base58(bytes);
}

export function sha(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}

// ---- registration and ledger rows ----------------------------------------------------------

/** Registers a wallet for a tenant with a queued job, as POST /v1/wallets/sync would. */
export async function registerWallet(db: Sql, tenant: string, owner: string, status = "complete", at = new Date()): Promise<void> {
  const tenantId = await ensureTenant(db, tenant);
  const iso = at.toISOString();
  // A finished first sync is what lets the tenant see the wallet's books.
  const synced = status === "complete" || status === "partial" ? iso : null;
  await db.run(...q`INSERT INTO tenant_wallets (tenant_id, owner, registered_at, first_synced_at) VALUES (${tenantId}, ${owner}, ${iso}, ${synced}) ON CONFLICT DO NOTHING`);
  await db.run(
    ...q`INSERT INTO sync_jobs (tenant_id, owner, status, requested_at, started_at, finished_at, attempts, phase, progress_done, progress_total, transactions_fetched)
     VALUES (${tenantId}, ${owner}, ${status}, ${iso}, ${iso}, ${status === "complete" ? iso : null}, 1, 'done', 3, 3, 7)
     ON CONFLICT(tenant_id, owner) DO UPDATE SET status = excluded.status`,
  );
}

export type Flavor = "cash_dividend" | "forward_split" | "stock_dividend" | "announced";

export const mints = {
  NVDAx: { mint: address("mint:NVDAx"), symbol: "NVDAx", decimals: 8 },
  SPYx: { mint: address("mint:SPYx"), symbol: "SPYx", decimals: 8 },
};

/** A realistic engine ActionRecord (cash dividend, forward split, stock dividend or announced). */
export function makeAction(owner: string, index: number, flavor: Flavor = "cash_dividend", opts: { symbol?: string; mint?: string; reason?: string } = {}): ActionRecord {
  const inst = index % 2 === 0 ? mints.NVDAx : mints.SPYx;
  const mint = opts.mint ?? inst.mint;
  const symbol = opts.symbol ?? inst.symbol;
  const day = new Date(Date.UTC(2025, 0, 1) + index * 86_400_000);
  const effectiveAt = day.toISOString();
  const blockTime = new Date(day.getTime() - 3 * 86_400_000).toISOString();
  const signature = base58(createHash("sha512").update(`sig:${owner}:${index}`).digest());
  const payloadSha256 = sha(`payload:${owner}:${index}`);
  const eventId = `evt-${symbol}-${index}`;
  const record = {
    eventId,
    version: 1,
    xstockSymbol: symbol,
    spvSymbol: symbol.replace(/x$/, ""),
    caType: flavor === "forward_split" ? "Stock Split" : flavor === "stock_dividend" ? "Stock Dividend" : "Cash Dividend",
    effectiveTimeUtc: effectiveAt,
    multiplierOld: "1",
    multiplierNew: "1.0025",
    grossCashflowUsd: "0.25",
    netCashflowUsd: "0.175",
    withholdingTaxRate: "0.3",
    fromUnits: null,
    toUnits: null,
    redemptionPriceUsd: null,
    notes: null,
    createdTimeUtc: blockTime,
    status: "Confirmed",
    xstockIsin: null,
    spvIsin: null,
  };
  const announced = flavor === "announced";
  const type = flavor === "announced" ? "cash_dividend" : flavor;
  const treatment = type === "cash_dividend" ? "income" : "quantity_basis";
  const kind = type === "cash_dividend" ? "dividend" : type === "forward_split" ? "split" : "unclassified_adjustment";
  const factor = type === "forward_split" ? "10" : type === "stock_dividend" ? "1.05" : null;
  const reasons =
    type === "stock_dividend"
      ? ["Stock dividend booked as a quantity adjustment, not income: units ×1.05, cost basis spread across them."]
      : type === "forward_split"
        ? ["Multiplier ×10 matches the issuer's 10-for-1 split."]
        : ["Multiplier change matches the issuer's cash dividend of 0.175 USD net per share."];
  const headline = type === "cash_dividend" ? `${symbol} cash dividend` : type === "forward_split" ? `${symbol} 10-for-1 split` : `${symbol} stock dividend`;
  return {
    id: `act_${sha(`${owner}:${index}`).slice(0, 16)}`,
    owner,
    mint,
    symbol,
    decimals: inst.decimals,
    transitionKey: announced ? null : `${mint}:${signature}:0`,
    type,
    treatment,
    category: type === "cash_dividend" ? "income" : "basis",
    quantityDisplay: type === "forward_split" ? "90" : type === "cash_dividend" ? "0.025" : "0.5",
    unitsBefore: "10",
    unitsAfter: type === "forward_split" ? "100" : type === "cash_dividend" ? "10.025" : "10.5",
    rawBalance: "1000000000",
    incomeUnits: type === "cash_dividend" ? "0.025" : "0",
    usd: type === "cash_dividend" ? "1.75" : null,
    grossUsd: type === "cash_dividend" ? "2.5" : null,
    withholdingTaxRate: type === "cash_dividend" ? "0.3" : null,
    withholdingTaxUsd: type === "cash_dividend" ? "0.75" : null,
    retentionRate: null,
    retainedUsd: type === "cash_dividend" ? "0" : null,
    factor,
    splitFactor: type === "forward_split" ? "10" : null,
    distributedFraction: null,
    proceedsUsd: null,
    underlying: null,
    refundNote: null,
    warnings: opts.reason ? [opts.reason] : [],
    reason: opts.reason ?? reasons[0]!,
    lifecycle: {
      state: announced ? "announced" : "activated",
      steps: [
        { state: "announced", at: blockTime, revision: { eventId, version: 1 }, supersedes: null, note: "Issuer record published." },
        ...(announced ? [] : [{ state: "activated" as const, at: effectiveAt, revision: null, supersedes: null, note: "Multiplier in force on chain." }]),
      ],
    },
    timestamps: {
      issuerEffectiveAt: effectiveAt,
      issuerCreatedAt: blockTime,
      configuredActivationAt: announced ? null : effectiveAt,
      publicationBlockTime: announced ? null : blockTime,
      firstObservedActiveAt: announced ? null : effectiveAt,
      ingestedAt: blockTime,
    },
    effectiveAt,
    chain: announced
      ? { signature: null, slot: null, blockTime: null, multiplierOld: null, multiplierNew: null, scheduledAt: null, effectiveAt: null, updateSignature: null }
      : {
          signature,
          slot: 300_000_000 + index,
          blockTime,
          multiplierOld: "1",
          multiplierNew: type === "forward_split" ? "10" : "1.0025",
          scheduledAt: effectiveAt,
          effectiveAt,
          updateSignature: signature,
        },
    matched: { eventId, version: 1, sha256: canonicalSha256(record) },
    revisions: [
      {
        eventId,
        version: 1,
        status: "Confirmed",
        caType: record.caType,
        sha256: canonicalSha256(record),
        ingestedAt: blockTime,
        edited: false,
        source: "xstocks",
        standing: "standing",
        record: record as never,
      },
    ],
    lineageLink: null,
    v1: { kind, splitFactor: type === "forward_split" ? "10" : null, headline, reasons, classificationResult: kind === "unclassified_adjustment" ? "unclassified" : kind },
    evidence: { chainKey: announced ? null : `${mint}:${signature}:0`, matchedRevisionSha256: canonicalSha256(record), revisionCount: 1, rawBalance: "1000000000", payloadSha256 },
    evidenceSha256: payloadSha256,
  } as ActionRecord;
}

/** Writes an action the way booking does (payload, hashes, projected read models). */
export function insertAction(db: Sql, a: ActionRecord): Promise<void> {
  return writeAction(db, a);
}

export function bookingOf(a: ActionRecord): JournalBooking {
  return {
    owner: a.owner,
    actionId: a.id,
    mint: a.mint,
    symbol: a.symbol,
    type: a.type,
    treatment: a.treatment,
    kind: a.v1.kind,
    unitsDelta: a.quantityDisplay,
    principalUnitsDelta: a.treatment === "income" ? "0" : a.quantityDisplay,
    incomeUnits: a.incomeUnits,
    usd: a.treatment === "income" ? a.usd : null,
    grossUsd: a.grossUsd,
    withholdingTaxRate: a.withholdingTaxRate,
    withholdingTaxUsd: a.withholdingTaxUsd,
    retentionRate: a.retentionRate,
    retainedUsd: a.retainedUsd,
    factor: a.factor,
    effectiveAt: a.effectiveAt,
    evidenceSha256: a.evidenceSha256,
  };
}

/** Appends a journal entry the way booking does (the journal is append-only); returns its id. */
export function insertJournal(
  db: Sql,
  b: JournalBooking,
  opts: { entryType?: "recognition" | "reversal"; reversesId?: number | null; changeReason?: string | null; now?: Date } = {},
): Promise<number> {
  return appendJournal(db, b, { entryType: opts.entryType ?? "recognition", reversesId: opts.reversesId ?? null, changeReason: opts.changeReason ?? null, at: (opts.now ?? new Date()).toISOString() });
}

export function makePosition(owner: string, inst: { mint: string; symbol: string; decimals: number }): PositionRecord {
  return {
    owner,
    mint: inst.mint,
    symbol: inst.symbol,
    decimals: inst.decimals,
    rawBalance: "1000000000",
    multiplier: "1.0025",
    quantity: "10.025",
    principalQuantity: "10",
    convertibleQuantity: "0.025",
    incomeUsd: "0",
    incomeUnits: "0.025",
    unvaluedIncomeEvents: 0,
    status: "ok",
    statusReason: null,
    unclassifiedAdjustments: 0,
  };
}

export async function insertYields(db: Sql, owner: string, inst: { mint: string; symbol: string }): Promise<void> {
  const to = new Date(Date.UTC(2025, 5, 1)).toISOString();
  const rec = (window: YieldRecord["window"], days: number): YieldRecord => ({
    owner,
    mint: inst.mint,
    symbol: inst.symbol,
    window,
    from: new Date(Date.UTC(2025, 5, 1) - days * 86_400_000).toISOString(),
    to,
    status: window === "tracked" ? "partial" : "ok",
    partialCode: window === "tracked" ? "history_starts_after_window" : null,
    incomeUsd: "1.75",
    incomeUnits: "0.025",
    averageQuantity: "10",
    shareYield: "0.0025",
    annualisedShareYield: "0.0304",
    distributionPerShareUsd: "0.175",
  });
  await db.run(
    ...q`INSERT INTO yields (owner, payload, updated_at) VALUES (${owner}, ${JSON.stringify([rec("trailing_30d", 30), rec("trailing_365d", 365), rec("tracked", 400)])}, ${new Date().toISOString()}) ON CONFLICT(owner) DO UPDATE SET payload = excluded.payload, updated_at = excluded.updated_at`,
  );
}

export async function insertInstrument(db: Sql, inst: { mint: string; symbol: string; decimals: number }, name = "NVIDIA xStock"): Promise<void> {
  await db.run(
    ...q`INSERT INTO instruments (mint, symbol, name, underlying, isin, decimals, updated_at) VALUES (${inst.mint}, ${inst.symbol}, ${name}, ${inst.symbol.replace(/x$/, "")}, ${"US67066G1040"}, ${inst.decimals}, ${new Date().toISOString()})
     ON CONFLICT(mint) DO UPDATE SET symbol = excluded.symbol, name = excluded.name, underlying = excluded.underlying, isin = excluded.isin,
       decimals = excluded.decimals, updated_at = excluded.updated_at`,
  );
  await db.run(
    ...q`INSERT INTO mint_states (mint, slot, decimals, authority, multiplier, new_multiplier, new_multiplier_effective_ts, observed_at) VALUES (${inst.mint}, ${300_000_000}, ${inst.decimals}, ${address("authority")}, ${"1.0025"}, ${"1.0025"}, ${1_735_689_600}, ${Math.floor(Date.now() / 1000)}) ON CONFLICT DO NOTHING`,
  );
}

export interface SeededWallet {
  owner: string;
  actions: ActionRecord[];
  journalIds: number[];
}

/**
 * Fills a registered wallet with `count` actions cycling through the flavors, one journal
 * recognition per booked action, a position per mint and yields; returns what it wrote.
 */
export async function seedWallet(db: Sql, owner: string, count = 5, opts: { reasonFor?: (i: number) => string | undefined } = {}): Promise<SeededWallet> {
  const flavors: Flavor[] = ["cash_dividend", "forward_split", "stock_dividend", "cash_dividend", "announced"];
  const actions: ActionRecord[] = [];
  const journalIds: number[] = [];
  for (let i = 0; i < count; i++) {
    const a = makeAction(owner, i, flavors[i % flavors.length], { reason: opts.reasonFor?.(i) });
    await insertAction(db, a);
    actions.push(a);
    if (a.lifecycle.state !== "announced") journalIds.push(await insertJournal(db, bookingOf(a)));
  }
  await insertYields(db, owner, mints.NVDAx);
  // What a booking stores after it appends to the journal: the portfolio, holding the positions.
  const positions = Object.values(mints).map((inst) => makePosition(owner, inst));
  await storePortfolios(db, new Map([[owner, positions]]), new Date().toISOString());
  return { owner, actions, journalIds };
}

// ---- HTTP ----------------------------------------------------------------------------------

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  key?: string | null;
  method?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

/** One request over real HTTP; parses JSON bodies, keeps the text. */
export async function call<T = any>(base: string, path: string, opts: CallOptions = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(base + path, { method: opts.method ?? (body !== undefined ? "POST" : "GET"), headers, body });
  // A live stream (GET /v2/events) never ends: its status and headers are the answer.
  const streaming = (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
  if (streaming) await res.body?.cancel();
  const text = streaming ? "" : await res.text();
  // docs/api.md#headers: every response, whatever its status, carries these two headers.
  if (!/^[0-9a-f-]{36}$/.test(res.headers.get("x-request-id") ?? "")) throw new Error(`${res.status} ${path}: no x-request-id`);
  if (!res.headers.get("x-ca-ledger-dataset")) throw new Error(`${res.status} ${path}: no x-ca-ledger-dataset`);
  let parsed: unknown = text;
  if ((res.headers.get("content-type") ?? "").includes("json")) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** Value.Check with a readable failure: returns the list of schema errors (empty when valid). */
export function schemaErrors(schema: TSchema, value: unknown): string[] {
  if (Value.Check(schema, value)) return [];
  return [...Value.Errors(schema, value)].slice(0, 10).map((e) => `${e.path}: ${e.message} (got ${JSON.stringify(e.value)?.slice(0, 80)})`);
}

/**
 * Reads until `ready` holds, and returns that reading; after `ms` (generous: the machine may be
 * loaded) returns the last one, for the test's own assertion to say what was missing. A test
 * waits for a state this way, never for a duration.
 */
export async function waitFor<T>(read: () => Promise<T>, ready: (value: T) => boolean, ms = 20_000): Promise<T> {
  for (const deadline = Date.now() + ms; ; await Bun.sleep(20)) {
    const value = await read();
    if (ready(value) || Date.now() > deadline) return value;
  }
}
