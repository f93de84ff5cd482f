// A wallet that held HONx through the issuer's 2026-08-14 cash dividend (a recorded step with its
// recorded issuer record), then sold everything and closed its token account: the chain lists no
// account for it any more. Built on the wallet scenario's real HONx mint bytes and authority history.
import { closeAccountTx, randomAddress, randomSignature, seededRandom, transferTx } from "./chain";
import { addTransaction } from "./rpc-server";
import { HONX_MINT, buildWalletScenario, type WalletScenario } from "./wallet-chain";

/** HONx's 2026-08-14 cash dividend takes force at this time (the recorded step). */
export const HONX_DIVIDEND_AT = Date.parse("2026-08-14T00:30:00.000Z") / 1000;

export interface ClosedScenario extends WalletScenario {
  closedAccount: string;
  held: bigint;
  /** buy, sell, close: oldest first. */
  signatures: string[];
}

/**
 * `incomingBuy`: the buy is a transfer the wallet did not sign, in a slot before providers record
 * token-balance owners (so only the account's own history shows it).
 */
export function buildClosedScenario(options: { seed?: number; incomingBuy?: boolean } = {}): ClosedScenario {
  const s = buildWalletScenario({ transfers: 0, seed: options.seed ?? 21 });
  const random = seededRandom((options.seed ?? 21) + 1);
  const closedAccount = randomAddress(random);
  const seller = { owner: randomAddress(random), tokenAccount: randomAddress(random) };
  const held = 250_00000000n;
  const [buy, sell, close] = [randomSignature(random), randomSignature(random), randomSignature(random)];
  const buyTx = transferTx({
    signature: buy,
    slot: options.incomingBuy ? 100_000_000 : 400_075_000,
    blockTime: 1_786_000_000,
    owner: s.owner,
    tokenAccount: closedAccount,
    mint: HONX_MINT,
    pre: null,
    post: held,
    counterparty: { ...seller, pre: 10n ** 15n, post: 10n ** 15n - held },
  });
  if (options.incomingBuy) buyTx.transaction.message.accountKeys[0] = seller.owner; // the seller signs; the wallet is not named
  addTransaction(s.chain, buy, buyTx, options.incomingBuy ? [closedAccount, seller.owner] : [closedAccount, s.owner]);
  const sellTx = transferTx({
    signature: sell,
    slot: 400_085_000,
    blockTime: 1_788_000_000,
    owner: s.owner,
    tokenAccount: closedAccount,
    mint: HONX_MINT,
    pre: held,
    post: 0n,
    counterparty: { ...seller, pre: 10n ** 15n - held, post: 10n ** 15n },
  });
  addTransaction(s.chain, sell, sellTx, [closedAccount, s.owner]);
  addTransaction(s.chain, close, closeAccountTx({ signature: close, slot: 400_085_100, blockTime: 1_788_000_100, owner: s.owner, tokenAccount: closedAccount, mint: HONX_MINT }), [
    closedAccount,
    s.owner,
  ]);
  s.chain.accounts.delete(closedAccount); // closed: the chain no longer has it
  s.chain.slot = 450_000_000;
  return { ...s, closedAccount, held, signatures: [buy, sell, close] };
}
