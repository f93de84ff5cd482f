// A custody seizure end to end: a mint with the PermanentDelegate extension (bytes from the
// token-2022 encoder), a transfer out of the wallet signed by the delegate and not by the owner,
// synced over JSON-RPC, then booked by the engine as `seizure` — never a sale or a withdrawal.
// A transfer the owner signed stays an ordinary withdrawal.
import { expect, test } from "bun:test";
import { address, none, some } from "@solana/kit";
import { extension, getMintEncoder } from "@solana-program/token-2022";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runEngine } from "../../src/domain/engine";
import { openLedger } from "../../src/ledger/db";
import { ensureTenant } from "../../src/ledger/keys";
import { rebookEverything } from "../../src/ledger/booking.ts";
import { storeObservations } from "../../src/ledger/store";
import { decodeMintBytes } from "../../src/sources/solana/decode";
import { syncWalletChain } from "../../src/sources/solana/chain-read/pipeline";
import { createRpc } from "../../src/sources/solana/rpc";
import { TOKEN_2022_PROGRAM_ID } from "../../src/sources/solana/wire";
import { XSTOCKS_AUTHORITY, encodeTokenAccount, randomAddress, randomSignature, seededRandom, transferTx } from "../support/chain";
import { addTransaction, emptyChain, startRpcServer } from "../support/rpc-server";
import { ledgerTarget } from "../support/engine.ts";
import { q } from "../support/sql.ts";

test("a permanent-delegate transfer without the owner's signature is booked as a seizure", async () => {
  const random = seededRandom(99);
  const [mint, delegate, owner, tokenAccount] = [randomAddress(random), randomAddress(random), randomAddress(random), randomAddress(random)];
  const mintBytes = getMintEncoder().encode({
    mintAuthority: none(),
    supply: 10n ** 12n,
    decimals: 8,
    isInitialized: true,
    freezeAuthority: none(),
    extensions: some([
      extension("ScaledUiAmountConfig", { authority: address(XSTOCKS_AUTHORITY), multiplier: 1, newMultiplierEffectiveTimestamp: 0n, newMultiplier: 1 }),
      extension("PermanentDelegate", { delegate: address(delegate) }),
    ]),
  }) as Uint8Array;
  expect(decodeMintBytes(mintBytes).permanentDelegate).toBe(delegate);

  const chain = emptyChain(500_000_000);
  chain.accounts.set(mint, { data: mintBytes, owner: TOKEN_2022_PROGRAM_ID });
  const t0 = 1_780_000_000;
  const deposit = randomSignature(random),
    withdrawal = randomSignature(random),
    seizure = randomSignature(random);
  addTransaction(chain, deposit, transferTx({ signature: deposit, slot: 1, blockTime: t0, owner, tokenAccount, mint, pre: null, post: 1_000_00000000n }), [tokenAccount]);
  addTransaction(chain, withdrawal, transferTx({ signature: withdrawal, slot: 2, blockTime: t0 + 100, owner, tokenAccount, mint, pre: 1_000_00000000n, post: 900_00000000n }), [tokenAccount]);
  const seized = transferTx({ signature: seizure, slot: 3, blockTime: t0 + 200, owner, tokenAccount, mint, pre: 900_00000000n, post: 0n });
  seized.transaction.message.accountKeys[0] = delegate; // the delegate signs; the owner does not
  addTransaction(chain, seizure, seized, [tokenAccount]);
  chain.accounts.set(tokenAccount, { data: encodeTokenAccount({ mint, owner, amount: 0n }), owner: TOKEN_2022_PROGRAM_ID });

  const server = startRpcServer(chain);
  try {
    const sync = await syncWalletChain(createRpc({ url: server.url }), owner, {}, { now: () => t0 + 1000 });
    expect(sync.gaps).toEqual([]);
    expect(sync.balanceChanges.map((b) => [b.signature, b.ownerSigned, b.byPermanentDelegate])).toEqual([
      [deposit, true, false],
      [withdrawal, true, false],
      [seizure, false, true],
    ]);
    const out = runEngine({
      now: t0 + 1000,
      instruments: [{ mint, symbol: "TESTx", name: null, underlying: null, isin: null, decimals: 8 }],
      mintStates: sync.mints,
      multiplierUpdates: sync.multiplierUpdates,
      issuerRevisions: [],
      wallets: [{ owner, accounts: sync.accounts, balanceChanges: sync.balanceChanges, gaps: [] }],
    });
    const seizures = out.actions.filter((a) => a.type === "seizure");
    expect(seizures).toHaveLength(1);
    expect(seizures[0]).toMatchObject({ category: "custody", treatment: "not_booked", usd: null });
    expect(seizures[0]!.v1.kind).toBe("unclassified_adjustment");
    expect(out.positions[0]).toMatchObject({ status: "ok", rawBalance: "0" });

    // The same through the ledger: who signed is stored with the balance change and read back.
    const dir = mkdtempSync(join(tmpdir(), "cal-seizure-"));
    const ledger = await openLedger(ledgerTarget(dir));
    try {
      await ledger.db.run(...q`INSERT INTO tenant_wallets (tenant_id, owner, registered_at) VALUES (${await ensureTenant(ledger.db, "acme")}, ${owner}, ${new Date().toISOString()})`);
      await storeObservations(ledger.db, {
        instruments: [{ mint, symbol: "TESTx", name: null, underlying: null, isin: null, decimals: 8 }],
        mintStates: sync.mints,
        tokenAccounts: sync.accounts,
        balanceChanges: sync.balanceChanges,
      });
      await rebookEverything(ledger.db, new Date((t0 + 1000) * 1000));
      expect(((await ledger.db.all(...q`SELECT e.type FROM actions a JOIN action_events e ON e.id = a.event_id WHERE a.owner = ${owner}`)) as { type: string }[]).map((r) => r.type)).toEqual([
        "seizure",
      ]);
    } finally {
      ledger.close();
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    server.stop();
  }
});
