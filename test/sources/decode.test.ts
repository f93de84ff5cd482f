import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { getBase58Decoder } from "@solana/kit";
import { DecodeError, base64Bytes, decodeMintAccount, decodeMintBytes, decodeTokenAccountBytes, extractBalanceChanges, findMultiplierUpdates } from "../../src/sources/solana/decode";
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAMS, type WireTransaction } from "../../src/sources/solana/wire";
import { XSTOCKS_AUTHORITY, encodeMint, encodeTokenAccount, readFixture, toBase64, transferTx, updateMultiplierData, updateMultiplierTx } from "../support/chain";

const iso = (unix: number) => new Date(unix * 1000).toISOString();

describe("mint accounts (recorded mainnet bytes)", () => {
  test("HONx: decimals 8, multiplier, scheduled new multiplier and its time", () => {
    const f = readFixture("chain/mint-HONx.json");
    const state = decodeMintAccount(f.address, { data: f.value.data[0], owner: f.value.owner }, { slot: f.context.slot, observedAt: 1789000000 });
    expect(state).toEqual({
      mint: "XsRbLZthfABAPAfumWNEJhPyiKDW6TvDVeAeW7oKqA2",
      slot: 446761924,
      decimals: 8,
      multiplierAuthority: XSTOCKS_AUTHORITY,
      multiplier: 0.9990655067370947,
      newMultiplier: 1.0011576563945983,
      newMultiplierEffectiveTimestamp: 1786667400,
      observedAt: 1789000000,
    });
    expect(iso(state!.newMultiplierEffectiveTimestamp)).toBe("2026-08-14T00:30:00.000Z");
  });

  // Each mint's stored (multiplier → newMultiplier at t) must be a step of the issuer's own
  // multiplier history for that symbol: an independent check of every decoded field.
  for (const symbol of ["HONx", "KOx", "NVDAx", "SPYx", "STRCx"]) {
    test(`${symbol} decodes and agrees with the issuer's multiplier history`, () => {
      const f = readFixture(`chain/mint-${symbol}.json`);
      const issuer = readFixture(`xstocks/${symbol}.json`);
      expect(issuer.mint).toBe(f.address);
      const state = decodeMintAccount(f.address, { data: f.value.data[0], owner: f.value.owner }, { slot: f.context.slot, observedAt: 0 })!;
      expect(state.decimals).toBe(8);
      expect(state.multiplierAuthority).toBe(XSTOCKS_AUTHORITY);
      const step = issuer.multiplierHistory.find((h: any) => h.activationDateTime === iso(state.newMultiplierEffectiveTimestamp));
      expect(step).toBeDefined();
      expect(step.multiplier).toBe(state.newMultiplier);
      expect(step.previousMultiplier).toBe(state.multiplier);
    });
  }

  test("a token account is not read as a mint, nor a mint as a token account", () => {
    const mint = base64Bytes(readFixture("chain/mint-KOx.json").value.data[0]);
    expect(() => decodeTokenAccountBytes(mint)).toThrow(DecodeError);
    const account = encodeTokenAccount({ mint: XSTOCKS_AUTHORITY, owner: XSTOCKS_AUTHORITY, amount: 5n });
    expect(() => decodeMintBytes(account)).toThrow(DecodeError);
    expect(() => decodeMintBytes(mint.slice(0, 200))).toThrow(DecodeError);
  });

  test("no extension → null; all-zero authority → null authority; other program → null", () => {
    const plain = encodeMint({ withExtension: false });
    expect(decodeMintAccount("m", { data: toBase64(plain), owner: TOKEN_2022_PROGRAM_ID }, { slot: 1, observedAt: 0 })).toBeNull();
    const orphan = encodeMint({ authority: null, multiplier: 1.5 });
    expect(decodeMintAccount("m", { data: toBase64(orphan), owner: TOKEN_2022_PROGRAM_ID }, { slot: 1, observedAt: 0 })!.multiplierAuthority).toBeNull();
    expect(decodeMintAccount("m", { data: toBase64(orphan), owner: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" }, { slot: 1, observedAt: 0 })).toBeNull();
  });
});

describe("UpdateMultiplier in recorded transactions", () => {
  const cases = [
    { file: "chain/tx-update-multiplier-0.json", symbol: "VRTx", current: 1.000144451415, next: 1.000314669728725 },
    { file: "chain/tx-update-multiplier-1.json", symbol: "UNHx", current: 1.0229655423325776, next: 1.0273478685368111 },
  ];
  for (const c of cases) {
    test(`${c.symbol}: a re-assert with a past timestamp, then the 2026-09-12T00:30Z schedule`, () => {
      const f = readFixture(c.file);
      const updates = findMultiplierUpdates(f.result);
      expect(updates).toHaveLength(2);
      // The file's own upstream decoding agrees, field by field.
      expect(updates.map((u) => ({ mint: u.mint, multiplier: u.multiplier, effective: iso(u.effectiveTimestamp) }))).toEqual(
        f.decoded.map((d: any) => ({ mint: d.mint, multiplier: d.multiplier, effective: d.effective })),
      );
      const [reassert, schedule] = updates as [(typeof updates)[number], (typeof updates)[number]];
      for (const u of updates) {
        expect(u.authority).toBe(XSTOCKS_AUTHORITY);
        expect(u.signature).toBe(f.signature);
        expect(u.slot).toBe(f.result.slot);
        expect(u.blockTime).toBe(f.result.blockTime);
      }
      expect(reassert.multiplier).toBe(c.current);
      expect(reassert.effectiveTimestamp).toBeLessThan(f.result.blockTime);
      expect(schedule.multiplier).toBe(c.next);
      expect(iso(schedule.effectiveTimestamp)).toBe("2026-09-12T00:30:00.000Z");
      expect(schedule.effectiveTimestamp).toBeGreaterThan(f.result.blockTime);
      expect(reassert.ixIndex).toBe(2000);
      expect(schedule.ixIndex).toBe(3000);
    });
  }

  test("the same instructions found through CPI (inner instructions), with their positions", () => {
    const tx = updateMultiplierTx({
      signature: "sigInner",
      slot: 10,
      blockTime: 1000,
      authority: XSTOCKS_AUTHORITY,
      inner: true,
      updates: [
        { mint: "XsLUiVEwYeoneKpgR1C2Q4DBUZhX4xDktSCfQqq8zmn", multiplier: 1.000144451415, effectiveTimestamp: 1781481300 },
        { mint: "XszvaiXGPwvk2nwb3o9C1CX4K6zH8sez11E6uyup6fe", multiplier: 1.0273478685368111, effectiveTimestamp: 1789173000 },
      ],
    });
    const updates = findMultiplierUpdates(tx);
    expect(updates.map((u) => [u.ixIndex, u.mint, u.multiplier, u.effectiveTimestamp])).toEqual([
      [1001, "XsLUiVEwYeoneKpgR1C2Q4DBUZhX4xDktSCfQqq8zmn", 1.000144451415, 1781481300],
      [1002, "XszvaiXGPwvk2nwb3o9C1CX4K6zH8sez11E6uyup6fe", 1.0273478685368111, 1789173000],
    ]);
  });

  test("account indexes resolve through v0 lookup-table addresses", () => {
    const f = readFixture("chain/tx-update-multiplier-0.json");
    const tx: WireTransaction = structuredClone(f.result);
    // Move the mint out of the static keys into a lookup table: index 4 = first loaded writable.
    const mint = tx.transaction.message.accountKeys.splice(1, 1)[0]!;
    tx.transaction.message.accountKeys.splice(1, 0, "Mem1111111111111111111111111111111111111111"); // keep other indexes stable
    tx.meta!.loadedAddresses = { writable: [mint], readonly: [] };
    for (const ix of tx.transaction.message.instructions) if (ix.accounts[0] === 1) ix.accounts[0] = 4;
    expect(findMultiplierUpdates(tx).map((u) => u.mint)).toEqual([mint, mint]);
  });

  test("a failed transaction changed nothing", () => {
    const f = readFixture("chain/tx-update-multiplier-1.json");
    const tx = structuredClone(f.result);
    tx.meta.err = { InstructionError: [2, { Custom: 1 }] };
    expect(findMultiplierUpdates(tx)).toEqual([]);
  });

  test("a malformed UpdateMultiplier is an error, not a guess", () => {
    const f = readFixture("chain/tx-update-multiplier-1.json");
    const tx = structuredClone(f.result);
    tx.transaction.message.instructions[2].data = getBase58Decoder().decode(new Uint8Array([43, 1, 0, 0, 0, 0]));
    expect(() => findMultiplierUpdates(tx)).toThrow(DecodeError);
    tx.transaction.message.instructions[2].data = updateMultiplierData(2, 1);
    tx.transaction.message.instructions[2].accounts = [99, 0];
    expect(() => findMultiplierUpdates(tx)).toThrow(DecodeError);
  });
});

describe("raw balances from transaction metadata", () => {
  const KOX = "XsaBXg8dU5cPM6ehmVctMkVqoiRG2ZjMo1cyBJ3AykQ";
  test("tx-transfer-KOx: raw pre/post token balances per owner, Token-2022 only", () => {
    const f = readFixture("chain/tx-transfer-KOx.json");
    const seller = extractBalanceChanges(f.result, "BG7f49R2sb2UBCMu3AHuDmgDRyzqVgeMpDEk9S9gvQhy");
    // The seller did not sign (a program moved its tokens): not signing alone is no seizure.
    expect(seller[0]!.ownerSigned).toBe(false);
    expect(seller.map(({ ownerSigned: _, ...rest }) => rest)).toEqual([
      {
        owner: "BG7f49R2sb2UBCMu3AHuDmgDRyzqVgeMpDEk9S9gvQhy",
        tokenAccount: "7ATYAtZbcStZ5XKgy1uFJce73Q4nrXXFXvetdQMXndnj", // index 25 = a v0 loaded (writable) address
        mint: KOX,
        signature: f.signature,
        slot: 446761926,
        blockTime: 1789321142,
        preRaw: 79589050199n,
        postRaw: 79581398022n,
      },
    ]);
    const pool = extractBalanceChanges(f.result, "GpMZbSM2GgvTKHJirzeGfMFoaZ8UR2X7F4v8vHTvxFbL");
    expect(pool.map((c) => [c.mint, c.preRaw, c.postRaw])).toEqual([
      ["9RS8C1Tfa3tvG8Wv5cXqfFwcGrFBdzxrkhnjMA6qb6iy", 216190516926357n, 216034159681336n],
      [KOX, 10443803305n, 10451455482n],
    ]);
    // The wallet holding 0 before and after: no change; its classic-Token USDC is not ours.
    expect(extractBalanceChanges(f.result, "BQ72nSv9f3PRyRKCBnHLVrerrv37CYTHm5h3s9VSGQDV")).toEqual([]);
    expect(extractBalanceChanges(f.result, "8R5qdXKMn2KcfHBy9rEpi43KScHewqvRAcpFyqoL3wap")).toEqual([]);
  });

  test("tx-transfer-KOx: every token balance change of the owner, across both token programs (the USDC a sale brought)", () => {
    const f = readFixture("chain/tx-transfer-KOx.json");
    const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"; // an SPL Token (Tokenkeg) mint
    const owner = "BG7f49R2sb2UBCMu3AHuDmgDRyzqVgeMpDEk9S9gvQhy";
    const both = extractBalanceChanges(f.result, owner, { programIds: TOKEN_PROGRAMS });
    expect(both.map((c) => [c.mint, c.preRaw, c.postRaw])).toEqual([
      [KOX, 79589050199n, 79581398022n],
      [USDC, 35241068492n, 35247952073n],
    ]);
    expect(both[1]!.tokenAccount).not.toBe(both[0]!.tokenAccount);
    expect(extractBalanceChanges(f.result, owner, { programIds: TOKEN_PROGRAMS, mints: new Set([USDC]) }).map((c) => c.mint)).toEqual([USDC]);
    // The default stays Token-2022 only: the ledger's own books never see the USDC.
    expect(extractBalanceChanges(f.result, owner).map((c) => c.mint)).toEqual([KOX]);
  });

  test("uiAmount (scaled at the node's clock) is never read", () => {
    const f = readFixture("chain/tx-transfer-KOx.json");
    const tx = structuredClone(f.result);
    for (const b of [...tx.meta.preTokenBalances, ...tx.meta.postTokenBalances]) {
      b.uiTokenAmount.uiAmount = 123456.789;
      b.uiTokenAmount.uiAmountString = "123456.789";
    }
    expect(extractBalanceChanges(tx, "BG7f49R2sb2UBCMu3AHuDmgDRyzqVgeMpDEk9S9gvQhy")).toEqual(extractBalanceChanges(f.result, "BG7f49R2sb2UBCMu3AHuDmgDRyzqVgeMpDEk9S9gvQhy"));
  });

  test("opened in the transaction → pre 0; closed → post 0; lookup-table account; filter by account", () => {
    const base = { slot: 5, blockTime: 100, owner: "W1", tokenAccount: "TA1", mint: "M1" };
    expect(extractBalanceChanges(transferTx({ ...base, signature: "s1", pre: null, post: 7n }), "W1")[0]).toMatchObject({ preRaw: 0n, postRaw: 7n });
    expect(extractBalanceChanges(transferTx({ ...base, signature: "s2", pre: 7n, post: null }), "W1")[0]).toMatchObject({ preRaw: 7n, postRaw: 0n });
    const lut = transferTx({ ...base, signature: "s3", pre: 1n, post: 2n, viaLookupTable: true });
    expect(extractBalanceChanges(lut, "W1")[0]).toMatchObject({ tokenAccount: "TA1", preRaw: 1n, postRaw: 2n });
    expect(extractBalanceChanges(lut, "W1", { tokenAccount: "other" })).toEqual([]);
    expect(extractBalanceChanges(transferTx({ ...base, signature: "s4", pre: 1n, post: 2n, failed: true }), "W1")).toEqual([]);
  });

  test("an unreadable raw amount is an error", () => {
    const tx = transferTx({ slot: 5, blockTime: 100, owner: "W1", tokenAccount: "TA1", mint: "M1", signature: "s", pre: 1n, post: 2n });
    tx.meta!.postTokenBalances![0]!.uiTokenAmount.amount = "2.5";
    expect(() => extractBalanceChanges(tx, "W1")).toThrow(DecodeError);
  });
});

describe("properties: what the token-2022 encoders write, the decoders read back", () => {
  const addressBytes = fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((b) => b.some((x) => x !== 0));
  const f64 = fc.double(); // every double, NaN, ±0, subnormals and infinities included

  test("mint configs", () => {
    fc.assert(
      fc.property(
        fc.record({
          decimals: fc.integer({ min: 0, max: 255 }),
          supply: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
          authority: fc.option(addressBytes, { nil: null }),
          multiplier: f64,
          newMultiplier: f64,
          // The token-2022 JS codec reads the mint's timestamp as u64 (the instruction's as i64).
          ts: fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.bigInt({ min: 0n, max: 4_102_444_800n })),
        }),
        (c) => {
          const authority = c.authority ? getBase58Decoder().decode(c.authority) : null;
          const bytes = encodeMint({ decimals: c.decimals, supply: c.supply, authority, multiplier: c.multiplier, newMultiplier: c.newMultiplier, newMultiplierEffectiveTimestamp: c.ts });
          const safe = c.ts >= BigInt(Number.MIN_SAFE_INTEGER) && c.ts <= BigInt(Number.MAX_SAFE_INTEGER);
          if (!safe) {
            expect(() => decodeMintBytes(bytes)).toThrow(DecodeError);
            return;
          }
          const d = decodeMintBytes(bytes);
          expect(d.decimals).toBe(c.decimals);
          expect(d.supply).toBe(c.supply);
          expect(d.scaledUiAmount!.authority).toBe(authority);
          expect(Object.is(d.scaledUiAmount!.multiplier, c.multiplier)).toBe(true);
          expect(Object.is(d.scaledUiAmount!.newMultiplier, c.newMultiplier)).toBe(true);
          expect(d.scaledUiAmount!.newMultiplierEffectiveTimestamp).toBe(Number(c.ts));
        },
      ),
      { numRuns: 300 },
    );
  });

  test("UpdateMultiplier instruction data inside a transaction", () => {
    fc.assert(
      fc.property(f64, fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), fc.boolean(), (multiplier, ts, inner) => {
        const tx = updateMultiplierTx({ signature: "s", slot: 1, blockTime: 2, authority: XSTOCKS_AUTHORITY, inner, updates: [{ mint: "M1", multiplier, effectiveTimestamp: ts }] });
        const u = findMultiplierUpdates(tx)[0]!;
        expect(Object.is(u.multiplier, multiplier)).toBe(true);
        expect(u.effectiveTimestamp).toBe(ts);
        expect(u.mint).toBe("M1");
      }),
      { numRuns: 200 },
    );
  });

  test("token account raw amounts (full u64)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), addressBytes, (amount, owner) => {
        const o = getBase58Decoder().decode(owner);
        const d = decodeTokenAccountBytes(encodeTokenAccount({ mint: XSTOCKS_AUTHORITY, owner: o, amount }));
        expect(d).toEqual({ mint: XSTOCKS_AUTHORITY, owner: o, amount });
      }),
      { numRuns: 200 },
    );
  });
});
