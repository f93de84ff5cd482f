// A mint whose Scaled UI Amount authority changed: the updates signed before the hand-over are in
// the earlier authority's history. The sync follows the hand-over recorded on chain (SetAuthority,
// authority type ScaledUiAmount: in an authority history already walked, or in the mint's own
// history) and walks the earlier authority too, from the cursor every wallet shares. Loopback
// JSON-RPC server, token-2022 encoders for every byte.
import { afterEach, describe, expect, test } from "bun:test";
import { buildTransitions } from "../../src/domain/timeline";
import { findAuthorityHandovers } from "../../src/sources/solana/decode";
import { syncWalletChain } from "../../src/sources/solana/chain-read/pipeline";
import { createRpc } from "../../src/sources/solana/rpc";
import { TOKEN_2022_PROGRAM_ID } from "../../src/sources/solana/wire";
import { encodeMint, encodeTokenAccount, randomAddress, randomSignature, seededRandom, setScaledUiAuthorityTx, transferTx, updateMultiplierTx } from "../support/chain";
import { addTransaction, emptyChain, startRpcServer, type RpcServer } from "../support/rpc-server";

const servers: RpcServer[] = [];
afterEach(() => {
  while (servers.length) servers.pop()!.stop();
});

const T = 1_780_000_000;
const now = () => T + 400 * 86_400;

/**
 * Authority A writes 1 → 1.01 → 1.02 (each a re-assert plus a schedule, as issuers do), hands the
 * multiplier to B (or to nobody), then B writes 1.03 unless `bWrites` is false. Other holders'
 * transfers fill the mint's history after the hand-over. The wallet holds the mint throughout.
 */
function scenario(opts: { to: "B" | null; bWrites: boolean; transfersAfterHandover?: number; seed?: number }) {
  const random = seededRandom(opts.seed ?? 4);
  const chain = emptyChain(460_000_000);
  const [A, B, mint, owner, account] = [randomAddress(random), randomAddress(random), randomAddress(random), randomAddress(random), randomAddress(random)];
  let slot = 440_000_000;
  const at = (days: number) => T + days * 86_400;
  const update = (authority: string, updates: { multiplier: number; effectiveTimestamp: number }[], blockTime: number) => {
    const signature = randomSignature(random);
    addTransaction(chain, signature, updateMultiplierTx({ signature, slot: (slot += 1000), blockTime, authority, updates: updates.map((u) => ({ mint, ...u })) }), [authority, mint]);
    return signature;
  };
  const buy = randomSignature(random);
  addTransaction(chain, buy, transferTx({ signature: buy, slot: (slot += 1000), blockTime: at(-1), owner, tokenAccount: account, mint, pre: null, post: 100_00000000n }), [account, owner, mint]);
  update(
    A,
    [
      { multiplier: 1, effectiveTimestamp: at(-2) },
      { multiplier: 1.01, effectiveTimestamp: at(30) },
    ],
    at(29),
  );
  update(
    A,
    [
      { multiplier: 1.01, effectiveTimestamp: at(30) },
      { multiplier: 1.02, effectiveTimestamp: at(60) },
    ],
    at(59),
  );
  const handover = randomSignature(random);
  addTransaction(chain, handover, setScaledUiAuthorityTx({ signature: handover, slot: (slot += 1000), blockTime: at(70), mint, from: A, to: opts.to === "B" ? B : null }), [A, mint]);
  for (let i = 0; i < (opts.transfersAfterHandover ?? 0); i++) {
    const [sig, o, acc] = [randomSignature(random), randomAddress(random), randomAddress(random)];
    addTransaction(chain, sig, transferTx({ signature: sig, slot: (slot += 10), blockTime: at(71) + i, owner: o, tokenAccount: acc, mint, pre: null, post: 5n }), [acc, o, mint]);
  }
  if (opts.bWrites)
    update(
      B,
      [
        { multiplier: 1.02, effectiveTimestamp: at(60) },
        { multiplier: 1.03, effectiveTimestamp: at(90) },
      ],
      at(89),
    );
  const state = opts.bWrites ? { multiplier: 1.02, newMultiplier: 1.03, ts: at(90) } : { multiplier: 1.01, newMultiplier: 1.02, ts: at(60) };
  chain.accounts.set(mint, {
    data: encodeMint({ authority: opts.to === "B" ? B : null, multiplier: state.multiplier, newMultiplier: state.newMultiplier, newMultiplierEffectiveTimestamp: state.ts }),
    owner: TOKEN_2022_PROGRAM_ID,
  });
  chain.accounts.set(account, { data: encodeTokenAccount({ mint, owner, amount: 100_00000000n }), owner: TOKEN_2022_PROGRAM_ID });
  chain.slot = slot + 1000;
  const server = startRpcServer(chain);
  servers.push(server);
  return { chain, server, A, B, mint, owner, handover };
}

/** The multiplier path the books replay from the updates found: [old, new] per change in force. */
const path = (updates: Parameters<typeof buildTransitions>[0]) =>
  buildTransitions(updates, now())
    .filter((t) => t.state === "activated")
    .map((t) => [t.multiplierOldF64, t.multiplierNewF64]);

describe("an earlier multiplier authority", () => {
  test("the hand-over is read back from the SetAuthority instruction the token-2022 encoder writes", () => {
    const tx = setScaledUiAuthorityTx({
      signature: "sig",
      slot: 1,
      blockTime: T,
      mint: "Mint1111111111111111111111111111111111111111",
      from: "11111111111111111111111111111112",
      to: "11111111111111111111111111111113",
    });
    expect(findAuthorityHandovers(tx)).toEqual([
      { mint: "Mint1111111111111111111111111111111111111111", from: "11111111111111111111111111111112", to: "11111111111111111111111111111113", signature: "sig", slot: 1 },
    ]);
  });

  test("updates the current authority's first one re-asserts are found in the earlier authority's history", async () => {
    const s = scenario({ to: "B", bWrites: true, transfersAfterHandover: 30 });
    const r = await syncWalletChain(createRpc({ url: s.server.url }), s.owner, {}, { now });
    expect(r.gaps).toEqual([]);
    expect(path(r.multiplierUpdates)).toEqual([
      [1, 1.01],
      [1.01, 1.02],
      [1.02, 1.03],
    ]);
    expect(new Set(r.multiplierUpdates.map((u) => u.authority))).toEqual(new Set([s.A, s.B]));
    // Both authorities' cursors are shared from now on; the mint's history was read only back from B's first update.
    expect(Object.keys(r.cursors.authorities).sort()).toEqual([s.A, s.B].sort());
    const mintPages = s.server.log.filter((l) => l.method === "getSignaturesForAddress" && l.params[0] === s.mint);
    expect(mintPages).toHaveLength(1);
    expect(mintPages[0]!.params[1].before).toBe(r.multiplierUpdates.find((u) => u.authority === s.B)!.signature);
  });

  test("a current authority that never wrote: the state is explained by the earlier one's updates", async () => {
    const s = scenario({ to: "B", bWrites: false });
    const r = await syncWalletChain(createRpc({ url: s.server.url }), s.owner, {}, { now });
    expect(r.gaps).toEqual([]);
    expect(path(r.multiplierUpdates)).toEqual([
      [1, 1.01],
      [1.01, 1.02],
    ]);
  });

  test("an authority removed after its updates: the earlier one is walked instead of leaving a gap", async () => {
    const s = scenario({ to: null, bWrites: false });
    const r = await syncWalletChain(createRpc({ url: s.server.url }), s.owner, {}, { now });
    expect(r.gaps).toEqual([]);
    expect(path(r.multiplierUpdates)).toEqual([
      [1, 1.01],
      [1.01, 1.02],
    ]);
  });

  test("a hand-over in an authority history already walked needs no read of the mint's history", async () => {
    const s = scenario({ to: "B", bWrites: true, seed: 6 });
    // The wallet also holds a mint A still controls, so A's history (with the hand-over) is walked anyway.
    const random = seededRandom(77);
    const [other, otherAccount] = [randomAddress(random), randomAddress(random)];
    s.chain.accounts.set(other, { data: encodeMint({ authority: s.A }), owner: TOKEN_2022_PROGRAM_ID });
    s.chain.accounts.set(otherAccount, { data: encodeTokenAccount({ mint: other, owner: s.owner, amount: 0n }), owner: TOKEN_2022_PROGRAM_ID });
    const r = await syncWalletChain(createRpc({ url: s.server.url }), s.owner, {}, { now });
    expect(r.gaps).toEqual([]);
    expect(path(r.multiplierUpdates.filter((u) => u.mint === s.mint))).toEqual([
      [1, 1.01],
      [1.01, 1.02],
      [1.02, 1.03],
    ]);
    expect(s.server.log.filter((l) => l.method === "getSignaturesForAddress" && l.params[0] === s.mint)).toHaveLength(0);
  });

  test("no hand-over to be found: a named gap that says what was searched, and the authority's cursor stays", async () => {
    const s = scenario({ to: "B", bWrites: true, seed: 7 });
    s.chain.signatures.set(
      s.mint,
      s.chain.signatures.get(s.mint)!.filter((x) => x.signature !== s.handover),
    ); // a node that lost it
    s.chain.signatures.set(s.A, []);
    const r = await syncWalletChain(createRpc({ url: s.server.url }), s.owner, {}, { now });
    expect(r.gaps.map((g) => g.address)).toEqual([s.mint]);
    expect(r.gaps[0]!.reason).toMatch(/earlier updates are missing; no hand-over of its multiplier authority in the \d+ transactions of the mint's history read before \w+/);
    expect(r.cursors.authorities[s.B]).toBeUndefined();
  });
});
