// A real swap in LiteSVM (the real SPL Token and Token-2022 programs): in one transaction the
// holder pays a USDC-like SPL token to a dealer and receives a Token-2022 Scaled UI token from it,
// both signing; later it sells some back for the stablecoin, after a multiplier change. The
// transactions, rendered as an RPC node's `json` encoding, go through the real sync job over
// JSON-RPC into a real ledger: the holder's part of each swap is stored (both token programs, its
// SOL, the signers) without any call of its own, and lotInputs prices the movements from it, so
// the lot engine realizes the gain worked by hand below. A second tenant following the same wallet
// reuses the stored changes and gets the same prices (docs/lots.md#what-the-sync-stores).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LiteSVM } from "litesvm";
import { generateKeyPairSigner, lamports, type Instruction, type TransactionSigner } from "@solana/kit";
import { getCreateAccountInstruction } from "@solana-program/system";
import * as spl from "@solana-program/token";
import { getCreateAssociatedTokenIdempotentInstruction, getMintToInstruction, getTransferCheckedInstruction } from "@solana-program/token-2022";
import { loadConfig } from "../../src/config.ts";
import { deriveLots } from "../../src/domain/lots/index.ts";
import { formatDecimal } from "../../src/domain/numbers.ts";
import { bookEverythingDirty } from "../../src/ledger/booking.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { ensureTenant } from "../../src/ledger/keys.ts";
import { lotInputs } from "../../src/ledger/read/lot-inputs.ts";
import { createKey } from "../../src/ledger/keys.ts";
import { createLogger } from "../../src/log.ts";
import { startServer } from "../../src/server.ts";
import { call } from "../harness/index.ts";
import { runSyncJob } from "../../src/sync/job.ts";
import { claimJob, registerAndEnqueue } from "../../src/sync/queue.ts";
import { ledgerFlags, ledgerTarget } from "../support/engine.ts";
import { ata2022, createScaledMintInstructions, reassertThenScheduleInstructions, recordSvm } from "../support/litesvm-chain.ts";
import { emptyChain, startRpcServer } from "../support/rpc-server.ts";
import { q } from "../support/sql.ts";

const T0 = 1_780_000_000n;
const STOCK_DECIMALS = 6;
const USD_DECIMALS = 6;

async function scenario() {
  const svm = new LiteSVM();
  const [issuer, dealer, holder, stock, usdc] = await Promise.all([1, 2, 3, 4, 5].map(() => generateKeyPairSigner()));
  for (const s of [issuer!, dealer!, holder!]) svm.airdrop(s.address, lamports(10_000_000_000n));
  const ataStock = (owner: TransactionSigner) => ata2022(owner.address, stock!.address);
  const ataSpl = async (owner: TransactionSigner) => (await spl.findAssociatedTokenPda({ owner: owner.address, mint: usdc!.address, tokenProgram: spl.TOKEN_PROGRAM_ADDRESS }))[0];
  const [holderStock, dealerStock, holderUsd, dealerUsd] = [await ataStock(holder!), await ataStock(dealer!), await ataSpl(holder!), await ataSpl(dealer!)];
  const chain = emptyChain(2000);
  const rec = recordSvm(svm, chain);
  rec.watch(holderStock, holder!.address, stock!.address, STOCK_DECIMALS);
  rec.watch(dealerStock, dealer!.address, stock!.address, STOCK_DECIMALS);
  rec.watch(holderUsd, holder!.address, usdc!.address, USD_DECIMALS, spl.TOKEN_PROGRAM_ADDRESS);
  rec.watch(dealerUsd, dealer!.address, usdc!.address, USD_DECIMALS, spl.TOKEN_PROGRAM_ADDRESS);
  const signatures: Record<string, string> = {};
  const send = async (label: string, payer: TransactionSigner, ixs: Instruction[], listedUnder: string[]) =>
    (signatures[label] = (await rec.send(label, payer, ixs, listedUnder)).transaction.signatures[0]!);

  rec.setClock(T0 - 86_400n);
  await send(
    "create stock",
    issuer!,
    [
      ...createScaledMintInstructions(svm, issuer!, stock!, STOCK_DECIMALS),
      getCreateAssociatedTokenIdempotentInstruction({ payer: issuer!, ata: dealerStock, owner: dealer!.address, mint: stock!.address }),
      getMintToInstruction({ mint: stock!.address, token: dealerStock, mintAuthority: issuer!, amount: 100_000_000n }),
    ],
    [issuer!.address],
  );
  const usdSpace = spl.getMintSize();
  await send(
    "create usdc",
    issuer!,
    [
      getCreateAccountInstruction({ payer: issuer!, newAccount: usdc!, lamports: svm.minimumBalanceForRentExemption(BigInt(usdSpace)), space: usdSpace, programAddress: spl.TOKEN_PROGRAM_ADDRESS }),
      spl.getInitializeMint2Instruction({ mint: usdc!.address, decimals: USD_DECIMALS, mintAuthority: issuer!.address, freezeAuthority: null }),
      spl.getCreateAssociatedTokenIdempotentInstruction({ payer: issuer!, ata: holderUsd, owner: holder!.address, mint: usdc!.address }),
      spl.getCreateAssociatedTokenIdempotentInstruction({ payer: issuer!, ata: dealerUsd, owner: dealer!.address, mint: usdc!.address }),
      spl.getMintToInstruction({ mint: usdc!.address, token: holderUsd, mintAuthority: issuer!, amount: 5_000_000_000n }),
      spl.getMintToInstruction({ mint: usdc!.address, token: dealerUsd, mintAuthority: issuer!, amount: 5_000_000_000n }),
    ],
    [issuer!.address, holder!.address],
  );

  // The buy: 1,234.5 USDC from the holder to the dealer, 10 tokens back, one transaction, both signing.
  rec.setClock(T0 + 100n);
  await send(
    "buy",
    holder!,
    [
      getCreateAssociatedTokenIdempotentInstruction({ payer: holder!, ata: holderStock, owner: holder!.address, mint: stock!.address }),
      spl.getTransferCheckedInstruction({ source: holderUsd, mint: usdc!.address, destination: dealerUsd, authority: holder!, amount: 1_234_500_000n, decimals: USD_DECIMALS }),
      getTransferCheckedInstruction({ source: dealerStock, mint: stock!.address, destination: holderStock, authority: dealer!, amount: 10_000_000n, decimals: STOCK_DECIMALS }),
    ],
    [holderStock, holder!.address, dealerStock, dealer!.address],
  );

  // The issuer's pattern: re-assert the value in force, then schedule 1.25 an hour later (exact in binary, so the units below are too).
  rec.setClock(T0 + 200n);
  await send("schedule", issuer!, reassertThenScheduleInstructions(issuer!, stock!.address, T0 - 86_400n, 1.25, T0 + 3600n), [issuer!.address]);

  // The sale: raw 4,000,000 (5 units at 1.25) back to the dealer for 500 USDC.
  rec.setClock(T0 + 8000n);
  await send(
    "sell",
    holder!,
    [
      getTransferCheckedInstruction({ source: holderStock, mint: stock!.address, destination: dealerStock, authority: holder!, amount: 4_000_000n, decimals: STOCK_DECIMALS }),
      spl.getTransferCheckedInstruction({ source: dealerUsd, mint: usdc!.address, destination: holderUsd, authority: dealer!, amount: 500_000_000n, decimals: USD_DECIMALS }),
    ],
    [holderStock, holder!.address, dealerStock, dealer!.address],
  );

  for (const a of [stock!.address, holderStock, dealerStock]) chain.accounts.set(a, rec.account(a));
  return { chain, signatures, holder: holder!.address, dealer: dealer!.address, stock: stock!.address, usdc: usdc!.address, now: new Date(Number(T0 + 9000n) * 1000) };
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("LiteSVM: a USDC-for-stock swap through the real sync, priced", async () => {
  const s = await scenario();
  const server = startRpcServer(s.chain);
  afterAll(() => server.stop());
  const dir = mkdtempSync(join(tmpdir(), "cal-swap-"));
  dirs.push(dir);
  // The USDC-like mint is a stablecoin by the STABLECOINS setting (the real USDC's address cannot be minted here).
  const config = loadConfig({ ...ledgerFlags(dir), "solana-rpc-url": server.url, "xstocks-api-url": "off" }, { STABLECOINS: s.usdc });
  const ledger = await openLedger(ledgerTarget(dir));
  let open = true;
  const closeLedger = async () => {
    if (open) {
      open = false;
      await ledger.close();
    }
  };
  afterAll(closeLedger);
  const now = () => s.now;
  const deps = { config, db: ledger.db, logger: createLogger("error"), now, book: async () => void (await bookEverythingDirty(ledger.db, now())) };
  const syncAs = async (tenant: string) => {
    const tenantId = await ensureTenant(ledger.db, tenant);
    await registerAndEnqueue(ledger.db, tenantId, 100, s.holder);
    const calls = server.log.length;
    const outcome = await runSyncJob(deps, (await claimJob(ledger.db, s.now))!);
    return { tenantId, outcome, getTransaction: server.log.slice(calls).filter((r) => r.method === "getTransaction").length };
  };
  const first = await syncAs("acme");

  test("the holder's part of each swap is stored, both token programs, its SOL and both signers; nothing else", async () => {
    expect(first.outcome).toBe("complete");
    const rows = await ledger.db.all(
      ...q<{
        signature: string;
        owner: string;
        signers: string;
        lamports: string | null;
        tokens: string;
        row_sha256: string | null;
      }>`SELECT signature, owner, signers, lamports, tokens, row_sha256 FROM transaction_changes ORDER BY slot`,
    );
    expect(rows.map((r) => r.signature)).toEqual([s.signatures.buy!, s.signatures.sell!]);
    const [buy, sell] = rows;
    expect(buy!.owner).toBe(s.holder);
    expect(JSON.parse(buy!.signers)).toEqual([s.holder, s.dealer]);
    // The holder paid the fee and the rent of its new token account: its SOL, fee added back, nets out.
    expect(buy!.lamports).toBe("0");
    expect(JSON.parse(buy!.tokens)).toHaveLength(2);
    const tokens = (text: string) => Object.fromEntries((JSON.parse(text) as { mint: string; preRaw: string; postRaw: string }[]).map((t) => [t.mint, [t.preRaw, t.postRaw]]));
    expect(tokens(buy!.tokens)).toEqual({ [s.stock]: ["0", "10000000"], [s.usdc]: ["5000000000", "3765500000"] });
    expect(tokens(sell!.tokens)).toEqual({ [s.stock]: ["10000000", "6000000"], [s.usdc]: ["3765500000", "4265500000"] });
    expect(rows.every((r) => r.row_sha256 !== null)).toBe(true);
  });

  test("lotInputs prices the buy and the sale from the stablecoin legs; the lots realize the gain worked by hand", async () => {
    const input = await lotInputs(ledger.db, first.tenantId, { stablecoins: config.stablecoins, now: s.now });
    expect(input.movements.map((m) => ({ signature: m.signature, raw: m.rawDelta, usd: m.usd && formatDecimal(m.usd), reason: m.reason }))).toEqual([
      { signature: s.signatures.buy!, raw: 10_000_000n, usd: "1234.5", reason: null },
      { signature: s.signatures.sell!, raw: -4_000_000n, usd: "500", reason: null },
    ]);
    // 10 units bought for $1,234.50 at M = 1; M → 1.25 (a change no issuer record explains:
    // scaled, basis unchanged): 12.5 units. Sold raw 4,000,000 = 5 units, 40% of the lot's raw,
    // so 40% of its basis, $493.80, for $500: a gain of $6.20. Left: 7.5 units, basis $740.70.
    const report = deriveLots(input, { method: "fifo", treatment: "income" });
    expect(report.realized.map((r) => [formatDecimal(r.units), formatDecimal(r.proceedsUsd!), formatDecimal(r.basisUsd!), formatDecimal(r.gainUsd!), r.term])).toEqual([
      ["5", "500", "493.8", "6.2", "short"],
    ]);
    expect(report.lots.map((l) => [formatDecimal(l.units), formatDecimal(l.basisUsd!), l.source])).toEqual([["7.5", "740.7", "purchase"]]);
  });

  test("without the setting the token is no stablecoin: the same movements carry no price", async () => {
    const input = await lotInputs(ledger.db, first.tenantId, { now: s.now });
    expect(input.movements.map((m) => [m.usd, m.reason])).toEqual([
      [null, "swap"],
      [null, "swap"],
    ]);
  });

  test("a second tenant reuses the stored changes (no transaction fetched again) and gets the same prices", async () => {
    const second = await syncAs("globex");
    expect(second.outcome).toBe("complete");
    expect(second.getTransaction).toBe(0);
    const a = await lotInputs(ledger.db, first.tenantId, { stablecoins: config.stablecoins, now: s.now });
    const b = await lotInputs(ledger.db, second.tenantId, { stablecoins: config.stablecoins, now: s.now });
    expect(b.movements).toEqual(a.movements);
    expect(first.getTransaction).toBeGreaterThan(0);
  });

  test("a tenant following both sides: derived for the holder alone, the dealer is linked in (they share transactions), and the holder's lots are the whole tenant's", async () => {
    const tenantId = await ensureTenant(ledger.db, "both");
    for (const owner of [s.holder, s.dealer]) {
      await registerAndEnqueue(ledger.db, tenantId, 100, owner);
      // The dealer's history is only what the recorder listed under the holder's accounts: partial, which is enough here.
      expect(["complete", "partial"]).toContain(await runSyncJob(deps, (await claimJob(ledger.db, s.now))!));
    }
    const whole = await lotInputs(ledger.db, tenantId, { stablecoins: config.stablecoins, now: s.now });
    const linked = await lotInputs(ledger.db, tenantId, { stablecoins: config.stablecoins, now: s.now, linkedTo: [s.holder] });
    expect(linked.owners).toEqual(whole.owners);
    expect(whole.owners).toEqual([s.holder, s.dealer].sort());
    // Between two followed wallets the stock's leg is an own transfer: the dealer's lots arrive with the holder's date and basis.
    expect(whole.movements.some((m) => m.counterpart !== null)).toBe(true);
    const mine = (r: ReturnType<typeof deriveLots>) => r.lots.filter((l) => l.owner === s.holder);
    expect(mine(deriveLots(linked, { method: "fifo", treatment: "income" }))).toEqual(mine(deriveLots(whole, { method: "fifo", treatment: "income" })));
    // The first tenant follows the holder alone: nothing to link.
    expect((await lotInputs(ledger.db, first.tenantId, { now: s.now, linkedTo: [s.holder] })).owners).toEqual([s.holder]);
  });

  test("the real server on loopback answers the same gain, lot and statement; the treatment and method it used are named", async () => {
    await closeLedger();
    const srv = await startServer({ port: "0", host: "127.0.0.1", ...ledgerFlags(dir) }, { offline: true, quiet: true, env: { LOG_LEVEL: "error", STABLECOINS: s.usdc, LOT_METHOD: "hifo" } });
    try {
      const { key } = await createKey(srv.ledger.db, { name: "swap", tenant: "acme", scopes: ["ledger:read"] });
      const get = async (path: string) => (await call(srv.url, path, { key })).body;
      const gains = await get("/v2/reports/gains?year=2026");
      expect([gains.treatment, gains.method]).toEqual(["income", "hifo"]);
      expect(gains.rows.map((r: Record<string, unknown>) => [r.units, r.proceedsUsd, r.basisUsd, r.gainUsd, r.term, r.signature])).toEqual([["5", "500", "493.8", "6.2", "short", s.signatures.sell]]);
      expect([gains.totals.short.gainUsd, gains.totals.long.rows]).toEqual(["6.2", 0]);
      const lots = await get(`/v2/lots?owner=${s.holder}&asOf=2026-12-31`);
      expect(lots.lots.map((l: Record<string, unknown>) => [l.units, l.basisUsd, l.source, l.signature])).toEqual([["7.5", "740.7", "purchase", s.signatures.buy]]);
      const statement = await get(`/v2/reports/holdings?asOf=2026-12-31&owner=${s.holder}`);
      const r = statement.wallets[0].instruments[0].reconciliation;
      expect([r.openingUnits, r.acquiredUnits, r.disposedUnits, r.corporateActionUnits, r.closingUnits]).toEqual(["0", "10", "5", "2.5", "7.5"]);
    } finally {
      await srv.stop();
    }
  });
});
