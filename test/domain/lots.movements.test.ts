// Movements and their prices from one transaction (docs/lots.md#movements-and-prices): a recorded
// mainnet swap read as the RPC sent it, each documented reason on a transaction built for it, own
// transfers whose lots keep their dates and basis, and properties over random transactions:
// deterministic, units conserved, a stablecoin leg never counted twice.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { units as unitsAt } from "../../src/domain/book";
import {
  deriveLots,
  MOVEMENT_REASONS,
  type Movement,
  type MovementContext,
  movementsOf,
  type TokenBalanceChange,
  transactionChangesOf,
  type TransactionChanges,
  USDC_MINT,
  USDT_MINT,
  PYUSD_MINT,
  WRAPPED_SOL_MINT,
  DEFAULT_STABLECOINS,
} from "../../src/domain/lots";
import { add, eq, formatDecimal, liftF64, pow10, type Rat, rat, ratAbs, sum, ZERO } from "../../src/domain/numbers";
import type { WireTransaction } from "../../src/sources/solana/wire";
import { readFixture } from "../support/chain";
import { ms } from "./lots-support";

const x = (r: Rat | null): string | null => (r === null ? null : formatDecimal(r));
const STABLE = new Set(DEFAULT_STABLECOINS);
const priced = (moves: Movement[]) => moves.map((m) => [m.owner, m.mint, m.rawDelta, x(m.usd), m.reason, m.counterpart]);

describe("a recorded mainnet swap (tx-transfer-KOx: SOL → 9RS8… → KOx → USDC through three pools)", () => {
  const f = readFixture<{ signature: string; result: WireTransaction }>("chain/tx-transfer-KOx.json");
  const KOX = "XsaBXg8dU5cPM6ehmVctMkVqoiRG2ZjMo1cyBJ3AykQ";
  const OTHER = "9RS8C1Tfa3tvG8Wv5cXqfFwcGrFBdzxrkhnjMA6qb6iy"; // a Token-2022 mint, 6 decimals
  const SIGNER = "Fj1s9o7GwzmvfhWabTckxGJUDGP6mLujd4ZGyCYFKGXn";
  const SELLER = "BG7f49R2sb2UBCMu3AHuDmgDRyzqVgeMpDEk9S9gvQhy";
  const MIDDLE = "GpMZbSM2GgvTKHJirzeGfMFoaZ8UR2X7F4v8vHTvxFbL";
  const changes = transactionChangesOf(f.result)!;
  const M = liftF64(1.0021);

  test("read as the RPC sent it: every owner's token accounts (both programs), signers, SOL with rent and fee netted", () => {
    expect(changes.signature).toBe(f.signature);
    expect(changes.at).toBe(1789321142 * 1000);
    expect(changes.signers).toEqual([SIGNER]);
    const seller = changes.tokens.filter((t) => t.owner === SELLER);
    expect(seller).toEqual([
      { owner: SELLER, mint: KOX, preRaw: 79589050199n, postRaw: 79581398022n, decimals: 8 },
      { owner: SELLER, mint: USDC_MINT, preRaw: 35241068492n, postRaw: 35247952073n, decimals: 6 },
    ]);
    // The signer paid 68,992,323 lamports of which 80,001 were the fee: 68,912,322 left it for the swap.
    expect(changes.lamports.get(SIGNER)).toBe(-68_912_322n);
    // A pool holding wrapped SOL: its token account's lamports count as its SOL.
    expect(changes.lamports.get("8R5qdXKMn2KcfHBy9rEpi43KScHewqvRAcpFyqoL3wap")).toBe(68_320_619n);
  });

  test("the KOx seller's USDC that arrived is its proceeds; the middle pool swapped a token; the signer paid SOL", () => {
    // Each wallet followed by a tenant of its own (two wallets of one tenant on both sides would be an own transfer).
    const multipliers = new Map([
      [KOX, M],
      [OTHER, liftF64(1)],
    ]);
    const of = (owner: string) => movementsOf(changes, { wallets: new Set([owner]), multipliers, stablecoins: STABLE });
    expect(priced(of(SELLER))).toEqual([[SELLER, KOX, -7_652_177n, "6.883581", null, null]]);
    // KOx in, 9RS8… out: followed mints moved both ways in one wallet with no stablecoin leg: a swap.
    expect(priced(of(MIDDLE)).map((r) => [r[1], r[2], r[4]])).toEqual([
      [OTHER, -156_357_245_021n, MOVEMENT_REASONS.swap],
      [KOX, 7_652_177n, MOVEMENT_REASONS.swap],
    ]);
    expect(priced(of(SIGNER))).toEqual([[SIGNER, OTHER, 151_666_527_670n, null, MOVEMENT_REASONS.solPaid, null]]);
  });

  test("both pools followed by one tenant: the KOx between them is an own transfer, the seller's USDC prices nothing", () => {
    const ctx: MovementContext = { wallets: new Set([SELLER, MIDDLE]), multipliers: new Map([[KOX, M]]), stablecoins: STABLE };
    const moves = movementsOf(changes, ctx);
    expect(moves.map((m) => [m.owner, m.rawDelta, m.usd, m.reason, m.counterpart])).toEqual([
      [SELLER, -7_652_177n, null, MOVEMENT_REASONS.ownTransfer, MIDDLE],
      [MIDDLE, 7_652_177n, null, MOVEMENT_REASONS.ownTransfer, SELLER],
    ]);
  });

  test("a failed transaction moved nothing", () => {
    expect(transactionChangesOf({ ...f.result, meta: { ...f.result.meta!, err: { InstructionError: [0, "Custom"] } } })).toBeNull();
  });
});

// ---- transactions built for one rule each -------------------------------------------------------

const A = "WalletA";
const B = "WalletB";
const C = "WalletC";
const STRANGER = "Stranger";
const POOL = "Pool";
const SPYX = "SPYxMint";
const TSLAX = "TSLAxMint";
const M0 = liftF64(1.003909240011759);
const E8 = 100_000_000n;
const usdc = (dollars: bigint): bigint => dollars * 1_000_000n;
const row = (owner: string, mint: string, delta: bigint, decimals = mint === SPYX || mint === TSLAX ? 8 : 6): TokenBalanceChange => ({
  owner,
  mint,
  preRaw: delta < 0n ? -delta : 0n,
  postRaw: delta > 0n ? delta : 0n,
  decimals,
});
const tx = (tokens: TokenBalanceChange[], extra: Partial<TransactionChanges> = {}): TransactionChanges => ({
  signature: "sig1",
  at: ms("2026-05-10T12:00:00Z"),
  signers: [A],
  tokens,
  lamports: new Map(),
  ...extra,
});
const ctx = (extra: Partial<MovementContext> = {}): MovementContext => ({
  wallets: new Set([A, B, C]),
  multipliers: new Map([
    [SPYX, M0],
    [TSLAX, liftF64(1)],
  ]),
  stablecoins: STABLE,
  ...extra,
});

describe("prices", () => {
  test("USDC that left the owner is the cost; USDT that arrived is the proceeds; stablecoins add up, valued 1:1", () => {
    const buy = tx([row(A, SPYX, 10n * E8), row(POOL, SPYX, -10n * E8), row(A, USDC_MINT, -usdc(7400n)), row(POOL, USDC_MINT, usdc(7400n))]);
    expect(priced(movementsOf(buy, ctx()))).toEqual([[A, SPYX, 10n * E8, "7400", null, null]]);
    const sell = tx([row(A, SPYX, -4n * E8), row(A, USDT_MINT, 3_100_123_456n)]);
    expect(priced(movementsOf(sell, ctx()))).toEqual([[A, SPYX, -4n * E8, "3100.123456", null, null]]);
    // Paid partly in USDC and partly in PYUSD (Token-2022): the two legs are one cost.
    const mixed = tx([row(A, SPYX, E8), row(A, USDC_MINT, -usdc(500n)), row(A, PYUSD_MINT, -250_500_000n)]);
    expect(priced(movementsOf(mixed, ctx()))).toEqual([[A, SPYX, E8, "750.5", null, null]]);
  });

  test("only the owner's own stablecoins count: a pool's USDC in the same transaction prices nothing of the owner's", () => {
    const t = tx([row(A, SPYX, E8), row(POOL, USDC_MINT, usdc(700n)), row(STRANGER, USDC_MINT, -usdc(700n))], { signers: [A, STRANGER] });
    expect(priced(movementsOf(t, ctx()))).toEqual([[A, SPYX, E8, null, MOVEMENT_REASONS.noStablecoinLeg, null]]);
  });

  test("stablecoins that moved the same way as the units are no price", () => {
    const t = tx([row(A, SPYX, E8), row(A, USDC_MINT, usdc(5n))]);
    expect(priced(movementsOf(t, ctx()))[0]![4]).toBe(MOVEMENT_REASONS.noStablecoinLeg);
  });

  test("one stablecoin leg for two followed mints bought together is not split: both unknown, shared_stablecoin_leg", () => {
    const t = tx([row(A, SPYX, E8), row(A, TSLAX, 2n * E8), row(A, USDC_MINT, -usdc(1200n))]);
    expect(priced(movementsOf(t, ctx()))).toEqual([
      [A, SPYX, E8, null, MOVEMENT_REASONS.sharedStablecoinLeg, null],
      [A, TSLAX, 2n * E8, null, MOVEMENT_REASONS.sharedStablecoinLeg, null],
    ]);
    // Still a purchase whose price the chain does not split (the declared cost of a lot can give it).
    const lots = deriveLots({ movements: movementsOf(t, ctx()), actions: [] }, { method: "fifo", treatment: "income" }).lots;
    expect(lots.map((l) => [l.mint, l.source, l.reason])).toEqual([
      [SPYX, "purchase", MOVEMENT_REASONS.sharedStablecoinLeg],
      [TSLAX, "purchase", MOVEMENT_REASONS.sharedStablecoinLeg],
    ]);
  });

  test("followed mints moving both ways are a swap, with or without a stablecoin leg between them", () => {
    const direct = tx([row(A, SPYX, -E8), row(A, TSLAX, 2n * E8)]);
    expect(priced(movementsOf(direct, ctx())).map((r) => r[4])).toEqual([MOVEMENT_REASONS.swap, MOVEMENT_REASONS.swap]);
    const withChange = tx([row(A, SPYX, -E8), row(A, TSLAX, 2n * E8), row(A, USDC_MINT, usdc(30n))]);
    expect(priced(movementsOf(withChange, ctx())).map((r) => r[4])).toEqual([MOVEMENT_REASONS.swap, MOVEMENT_REASONS.swap]);
  });

  test("another token the other way is a swap; SOL the other way beyond the fee is sol_paid or sol_received", () => {
    expect(priced(movementsOf(tx([row(A, SPYX, E8), row(A, "BonkMint", -5_000n, 5)]), ctx()))[0]![4]).toBe(MOVEMENT_REASONS.swap);
    const paid = tx([row(A, SPYX, E8)], { lamports: new Map([[A, -3_500_000_000n]]) });
    expect(priced(movementsOf(paid, ctx()))[0]![4]).toBe(MOVEMENT_REASONS.solPaid);
    const received = tx([row(A, SPYX, -E8)], { lamports: new Map([[A, 3_400_000_000n]]) });
    expect(priced(movementsOf(received, ctx()))[0]![4]).toBe(MOVEMENT_REASONS.solReceived);
    // Without the lamports, wrapped SOL is read instead.
    const wrapped = tx([row(A, SPYX, E8), row(A, WRAPPED_SOL_MINT, -3_500_000_000n, 9)]);
    expect(priced(movementsOf(wrapped, ctx()))[0]![4]).toBe(MOVEMENT_REASONS.solPaid);
    // SOL that moved the same way (rent the owner got back when closing its account) is no payment.
    const closed = tx([row(A, SPYX, -E8)], { lamports: new Map([[A, 0n]]) });
    expect(priced(movementsOf(closed, ctx()))[0]![4]).toBe(MOVEMENT_REASONS.transfer);
  });

  test("the stablecoin leg is the price whatever else moved (a tip in SOL, another token)", () => {
    const t = tx([row(A, SPYX, E8), row(A, USDC_MINT, -usdc(741n)), row(A, "BonkMint", -5n, 5)], { lamports: new Map([[A, -10_000n]]) });
    expect(priced(movementsOf(t, ctx()))).toEqual([[A, SPYX, E8, "741", null, null]]);
  });
});

describe("transfers", () => {
  test("received without signing: transfer; from a listed exchange: cex_withdrawal; signed, nothing paid: no_stablecoin_leg", () => {
    const t = tx([row(A, SPYX, E8), row(STRANGER, SPYX, -E8)], { signers: [STRANGER] });
    expect(priced(movementsOf(t, ctx()))[0]![4]).toBe(MOVEMENT_REASONS.transfer);
    expect(priced(movementsOf(t, ctx({ exchanges: new Set([STRANGER]) })))[0]![4]).toBe(MOVEMENT_REASONS.cexWithdrawal);
    expect(priced(movementsOf(tx([row(A, SPYX, E8)]), ctx()))[0]![4]).toBe(MOVEMENT_REASONS.noStablecoinLeg);
  });

  test("sent away with nothing back: transfer; taken by the mint's permanent delegate without the owner's signature: seizure", () => {
    expect(priced(movementsOf(tx([row(A, SPYX, -E8), row(STRANGER, SPYX, E8)]), ctx()))[0]![4]).toBe(MOVEMENT_REASONS.transfer);
    const seized = tx([row(A, SPYX, -E8), row("Issuer", SPYX, E8)], { signers: ["Delegate"] });
    expect(priced(movementsOf(seized, ctx({ permanentDelegates: new Map([[SPYX, "Delegate"]]) })))[0]![4]).toBe(MOVEMENT_REASONS.seizure);
    // Another signer that is not the delegate: a plain transfer.
    expect(priced(movementsOf(seized, ctx({ permanentDelegates: new Map([[SPYX, "Other"]]) })))[0]![4]).toBe(MOVEMENT_REASONS.transfer);
  });

  test("between two followed wallets: an own transfer on both sides, each naming the other", () => {
    const t = tx([row(A, SPYX, -3n * E8), row(B, SPYX, 3n * E8)]);
    expect(priced(movementsOf(t, ctx()))).toEqual([
      [A, SPYX, -3n * E8, null, MOVEMENT_REASONS.ownTransfer, B],
      [B, SPYX, 3n * E8, null, MOVEMENT_REASONS.ownTransfer, A],
    ]);
  });

  test("an own transfer beside a sale to someone else in the same transaction: only the matched part moves lots", () => {
    // A sends 5 to B and 2 to a buyer who pays A in USDC.
    const t = tx([row(A, SPYX, -7n * E8), row(B, SPYX, 5n * E8), row(STRANGER, SPYX, 2n * E8), row(A, USDC_MINT, usdc(1500n))]);
    expect(priced(movementsOf(t, ctx()))).toEqual([
      [A, SPYX, -5n * E8, null, MOVEMENT_REASONS.ownTransfer, B],
      [A, SPYX, -2n * E8, "1500", null, null],
      [B, SPYX, 5n * E8, null, MOVEMENT_REASONS.ownTransfer, A],
    ]);
  });

  test("several followed wallets on each side are matched in owner order", () => {
    const t = tx([row(A, SPYX, -4n * E8), row(B, SPYX, -2n * E8), row(C, SPYX, 6n * E8)]);
    expect(priced(movementsOf(t, ctx())).map((r) => [r[0], r[2], r[5]])).toEqual([
      [A, -4n * E8, C],
      [B, -2n * E8, C],
      [C, 6n * E8, A],
    ]);
  });

  test("the lot engine moves an own transfer's lots with their dates and basis; the sale in the other wallet realizes them", () => {
    const k = ctx();
    const bought = movementsOf(tx([row(A, SPYX, 10n * E8), row(A, USDC_MINT, -usdc(7400n))], { signature: "buy", at: ms("2025-01-10T12:00:00Z") }), k);
    const moved = movementsOf(tx([row(A, SPYX, -10n * E8), row(B, SPYX, 10n * E8)], { signature: "move", at: ms("2025-06-01T00:00:00Z") }), k);
    const sold = movementsOf(tx([row(B, SPYX, -10n * E8), row(B, USDC_MINT, usdc(8000n))], { signature: "sell", at: ms("2026-02-01T00:00:00Z"), signers: [B] }), k);
    const report = deriveLots({ movements: [...bought, ...moved, ...sold], actions: [] }, { method: "fifo", treatment: "income" });
    expect(report.problems).toEqual([]);
    expect(report.realized.map((r) => [r.owner, r.acquiredAt, x(r.basisUsd), x(r.proceedsUsd), x(r.gainUsd), r.term])).toEqual([[B, ms("2025-01-10T12:00:00Z"), "7400", "8000", "600", "long"]]);
  });
});

// ---- properties over random transactions --------------------------------------------------------

const OWNERS = [A, B, C, STRANGER, POOL];
const MINTS = [SPYX, TSLAX, USDC_MINT, USDT_MINT, PYUSD_MINT, WRAPPED_SOL_MINT, "BonkMint"];
const DECIMALS: Record<string, number> = { [SPYX]: 8, [TSLAX]: 8, [WRAPPED_SOL_MINT]: 9, BonkMint: 5 };
const amount = fc.bigInt({ min: 0n, max: 10n ** 12n });
const rowArb = fc.record({ owner: fc.constantFrom(...OWNERS), mint: fc.constantFrom(...MINTS), preRaw: amount, postRaw: amount }).map((r) => ({ ...r, decimals: DECIMALS[r.mint] ?? 6 }));
const txArb = fc
  .record({
    tokens: fc.array(rowArb, { maxLength: 14 }),
    signers: fc.subarray(OWNERS.concat(["Delegate"])),
    lamports: fc.array(fc.tuple(fc.constantFrom(...OWNERS), fc.bigInt({ min: -(10n ** 10n), max: 10n ** 10n }))),
  })
  .map(({ tokens, signers, lamports }): TransactionChanges => ({ signature: "sigP", at: 1_700_000_000_000, signers, tokens, lamports: new Map(lamports) }));
const ctxArb = fc
  .record({ wallets: fc.subarray([A, B, C]), exchanges: fc.subarray([STRANGER, POOL]) })
  .map(({ wallets, exchanges }): MovementContext => ({ ...ctx(), wallets: new Set(wallets), exchanges: new Set(exchanges), permanentDelegates: new Map([[SPYX, "Delegate"]]) }));

/** Σ raw change per followed wallet × followed mint, straight from the rows. */
function rawNet(t: TransactionChanges, k: MovementContext): Map<string, bigint> {
  const net = new Map<string, bigint>();
  for (const r of t.tokens) {
    if (!k.wallets.has(r.owner) || !k.multipliers.has(r.mint)) continue;
    const key = `${r.owner}:${r.mint}`;
    net.set(key, (net.get(key) ?? 0n) + r.postRaw - r.preRaw);
  }
  for (const [key, v] of net) if (v === 0n) net.delete(key);
  return net;
}

describe("properties", () => {
  test("deterministic: the same transaction, its rows in any order, gives the same movements", () => {
    fc.assert(
      fc.property(txArb, ctxArb, fc.infiniteStream(fc.nat()), (t, k, seeds) => {
        const shuffled = {
          ...t,
          tokens: [...t.tokens]
            .map((r) => ({ r, key: seeds.next().value }))
            .sort((a, b) => a.key - b.key)
            .map(({ r }) => r),
        };
        expect(movementsOf(shuffled, k)).toEqual(movementsOf(t, k));
      }),
      { numRuns: 300 },
    );
  });

  test("conservation: per wallet × mint, the movements' raw changes and units are the rows' raw change × M", () => {
    fc.assert(
      fc.property(txArb, ctxArb, (t, k) => {
        const moves = movementsOf(t, k);
        const got = new Map<string, bigint>();
        const units = new Map<string, Rat>();
        for (const m of moves) {
          expect(m.rawDelta).not.toBe(0n);
          const key = `${m.owner}:${m.mint}`;
          got.set(key, (got.get(key) ?? 0n) + m.rawDelta);
          const u = unitsAt(m.rawDelta < 0n ? -m.rawDelta : m.rawDelta, m.multiplier, m.decimals);
          units.set(key, add(units.get(key) ?? ZERO, m.rawDelta < 0n ? { n: -u.n, d: u.d } : u));
        }
        const net = rawNet(t, k);
        expect(got).toEqual(net);
        for (const [key, raw] of net) {
          const mint = key.split(":")[1]!;
          expect(eq(units.get(key)!, rat(raw * k.multipliers.get(mint)!.n, k.multipliers.get(mint)!.d * pow10(DECIMALS[mint]!)))).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("a stablecoin leg is never counted twice: per owner at most one priced movement, priced at exactly its stablecoin change", () => {
    fc.assert(
      fc.property(txArb, ctxArb, (t, k) => {
        const moves = movementsOf(t, k);
        for (const owner of k.wallets) {
          const pricedMoves = moves.filter((m) => m.owner === owner && m.usd !== null);
          expect(pricedMoves.length).toBeLessThanOrEqual(1);
          if (pricedMoves.length === 0) continue;
          const stable = sum(t.tokens.filter((r) => r.owner === owner && STABLE.has(r.mint)).map((r) => rat(r.postRaw - r.preRaw, pow10(r.decimals))));
          const m = pricedMoves[0]!;
          expect(eq(m.usd!, ratAbs(stable))).toBe(true);
          // The other way: cost left the owner, proceeds arrived.
          expect(Math.sign(Number(stable.n))).toBe(m.rawDelta > 0n ? -1 : 1);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("every unknown USD has a reason, a known one has none and is never 0; own transfers balance per mint", () => {
    const reasons = new Set<string>(Object.values(MOVEMENT_REASONS));
    fc.assert(
      fc.property(txArb, ctxArb, (t, k) => {
        const moves = movementsOf(t, k);
        for (const m of moves) {
          if (m.usd === null) expect(reasons.has(m.reason!)).toBe(true);
          else expect([m.reason, m.usd.n === 0n]).toEqual([null, false]);
          expect(m.counterpart === null).toBe(m.reason !== MOVEMENT_REASONS.ownTransfer);
          if (m.counterpart !== null) expect(k.wallets.has(m.counterpart) && m.counterpart !== m.owner).toBe(true);
        }
        for (const mint of k.multipliers.keys()) {
          const own = moves.filter((m) => m.mint === mint && m.counterpart !== null).reduce((s, m) => s + m.rawDelta, 0n);
          expect(own).toBe(0n);
        }
      }),
      { numRuns: 300 },
    );
  });
});
