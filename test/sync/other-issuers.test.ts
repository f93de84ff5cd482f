// A Scaled UI Amount mint of another issuer (no corporate-action feed lists it), its bytes written
// by the real Token-2022 program in LiteSVM with the MetadataPointer and TokenMetadata extensions
// as such issuers deploy them. The sync names the instrument from the mint's own metadata
// (source `token-metadata`), every read shows that name, and its multiplier change is an
// `unknown` action whose reason says what happened and how to explain it.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LiteSVM } from "litesvm";
import { generateKeyPairSigner, lamports } from "@solana/kit";
import { getCreateAssociatedTokenIdempotentInstruction, getMintToInstruction, getUpdateTokenMetadataFieldInstruction, tokenMetadataField } from "@solana-program/token-2022";
import { loadConfig } from "../../src/config.ts";
import { runEngine } from "../../src/domain/engine.ts";
import { bookEverythingDirty } from "../../src/ledger/booking.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { ensureTenant } from "../../src/ledger/keys.ts";
import { listAssets } from "../../src/ledger/queries/assets.ts";
import { storeObservations } from "../../src/ledger/store.ts";
import { createLogger } from "../../src/log.ts";
import { decodeMintBytes } from "../../src/sources/solana/decode.ts";
import { pollIssuer } from "../../src/sync/issuer-poll.ts";
import { pollMints } from "../../src/sync/mint-poll.ts";
import { runSyncJob } from "../../src/sync/job.ts";
import { claimJob, registerAndEnqueue } from "../../src/ledger/queue.ts";
import { ata2022, createScaledMintInstructions, reassertThenScheduleInstructions, recordSvm } from "../support/litesvm-chain.ts";
import { untaxedDividendRecord } from "../support/issuer-records.ts";
import { emptyChain, startRpcServer } from "../support/rpc-server.ts";
import { loadIssuerFixture, startIssuerServer } from "../support/issuer-server.ts";
import { ledgerTarget, ledgerFlags } from "../support/engine.ts";
import { q } from "../support/sql.ts";
import { actionQueries, actionRecords } from "../../src/ledger/queries/actions.ts";
import { portfolioQueries } from "../../src/ledger/queries/portfolio.ts";

const T0 = 1_780_000_000n;
const DECIMALS = 6;
const METADATA = { name: "Example Corp PreStock", symbol: "EXPRE", uri: "https://issuer.example/exp.json" };
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function otherIssuerMint() {
  const svm = new LiteSVM();
  const [issuer, holder, mint] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
  svm.airdrop(issuer.address, lamports(10_000_000_000n));
  const holderAta = await ata2022(holder.address, mint.address);
  const chain = emptyChain(1000);
  const svmChain = recordSvm(svm, chain);
  svmChain.watch(holderAta, holder.address, mint.address, DECIMALS);
  svmChain.setClock(T0 - 86_400n);
  await svmChain.send("create", issuer, createScaledMintInstructions(svm, issuer, mint, DECIMALS, METADATA), [issuer.address]);
  await svmChain.send(
    "mint",
    issuer,
    [
      getCreateAssociatedTokenIdempotentInstruction({ payer: issuer, ata: holderAta, owner: holder.address, mint: mint.address }),
      getMintToInstruction({ mint: mint.address, token: holderAta, mintAuthority: issuer, amount: 100_000_000n }),
    ],
    [holderAta, holder.address, issuer.address],
  );
  svmChain.setClock(T0);
  await svmChain.send("schedule", issuer, reassertThenScheduleInstructions(issuer, mint.address, T0 - 86_400n, 1.025, T0 + 3600n), [issuer.address]);
  for (const a of [mint.address, holderAta]) chain.accounts.set(a, svmChain.account(a));
  /** The issuer renames the mint in its metadata (same lengths: the account was funded for these). */
  const rename = async (symbol: string, name: string) => {
    await svmChain.send(
      "rename",
      issuer,
      [
        getUpdateTokenMetadataFieldInstruction({ metadata: mint.address, updateAuthority: issuer, field: tokenMetadataField("Symbol"), value: symbol }),
        getUpdateTokenMetadataFieldInstruction({ metadata: mint.address, updateAuthority: issuer, field: tokenMetadataField("Name"), value: name }),
      ],
      [issuer.address],
    );
    chain.accounts.set(mint.address, svmChain.account(mint.address));
  };
  return { chain, rename, mint: mint.address as string, holder: holder.address as string, issuer: issuer.address as string };
}

/**
 * A ledger following the mint's holder: loopback RPC (the LiteSVM bytes) and issuer servers, the
 * issuer feed polled, the holder registered and synced, a day after the multiplier schedule.
 */
async function followHolder(s: Awaited<ReturnType<typeof otherIssuerMint>>) {
  const rpc = startRpcServer(s.chain);
  const issuerFeed = startIssuerServer(loadIssuerFixture());
  const dir = mkdtempSync(join(tmpdir(), "cal-other-"));
  dirs.push(dir);
  const ledger = await openLedger(ledgerTarget(dir));
  const close = async () => {
    await ledger.close();
    rpc.stop();
    issuerFeed.stop();
  };
  try {
    const config = loadConfig({ ...ledgerFlags(dir), "solana-rpc-url": rpc.url, "xstocks-api-url": issuerFeed.url }, {});
    const now = () => new Date(Number(T0 + 86_400n) * 1000);
    const deps = { config, db: ledger.db, logger: createLogger("error"), now, book: async () => void (await bookEverythingDirty(ledger.db, now())) };
    await pollIssuer(deps);
    await registerAndEnqueue(ledger.db, await ensureTenant(ledger.db, "acme"), 100, s.holder);
    expect(await runSyncJob(deps, (await claimJob(ledger.db))!)).toBe("complete");
    return { ledger, deps, now, close };
  } catch (e) {
    await close();
    throw e;
  }
}

describe("a Scaled UI Amount mint no issuer feed lists", async () => {
  const s = await otherIssuerMint();

  test("the program's metadata extension decodes to its name, symbol and uri", () => {
    expect(decodeMintBytes(s.chain.accounts.get(s.mint)!.data).metadata).toEqual(METADATA);
  });

  test("is named from its metadata in /v1/assets and every read; its change says there is no feed and how to add a record", async () => {
    const { ledger, close } = await followHolder(s);
    try {
      const asset = (await listAssets(ledger.db, await ensureTenant(ledger.db, "acme"), Number(T0 + 86_400n))).find((a) => a.mint === s.mint);
      expect(asset).toMatchObject({
        symbol: "EXPRE",
        name: METADATA.name,
        uri: METADATA.uri,
        source: "token-metadata",
        decimals: DECIMALS,
        multiplier: "1.024999999999999911182158029987476766109466552734375",
      });
      // Found in acme's wallet: another tenant is not told the mint exists (docs/api.md#tenancy).
      expect((await listAssets(ledger.db, await ensureTenant(ledger.db, "globex"))).find((a) => a.mint === s.mint)).toBeUndefined();
      const [action] = await actionRecords(ledger.db, { owners: [s.holder] });
      expect(action!.type).toBe("unknown");
      expect(action).toMatchObject({
        symbol: "EXPRE",
        reason: "no issuer feed for this mint: a multiplier change of +2.5% that no record explains; add one with `ca-ledger import issuer-records`",
      });
      expect(JSON.parse((await actionQueries(ledger.db).listJson(s.holder, { limit: 1, offset: 0 })).rows[0]!).symbol).toBe("EXPRE");
      expect(((await ledger.db.all(...q`SELECT symbol FROM journal WHERE owner = ${s.holder}`)) as { symbol: string }[]).map((j) => j.symbol)).toEqual(["EXPRE"]);
      expect(JSON.parse(await portfolioQueries(ledger.db).portfolio(s.holder)).positions[0].symbol).toBe("EXPRE");

      // The issuer feed's row, should it list the mint one day, replaces the metadata's; the metadata never replaces the feed's.
      await storeObservations(ledger.db, { instruments: [{ mint: s.mint, symbol: "EXPx", name: "Example Corp xStock", underlying: "EXP", isin: null, decimals: null }] });
      await storeObservations(ledger.db, {
        instruments: [{ mint: s.mint, symbol: "EXPRE", name: METADATA.name, underlying: null, isin: null, decimals: DECIMALS, source: "token-metadata", uri: METADATA.uri }],
      });
      expect((await listAssets(ledger.db, await ensureTenant(ledger.db, "acme"))).find((a) => a.mint === s.mint)).toMatchObject({ symbol: "EXPx", source: "xstocks", uri: null });
    } finally {
      await close();
    }
  });
});

describe("a mint its issuer renames in its metadata", async () => {
  const s = await otherIssuerMint();

  test("is renamed by the next mint poll, without a wallet's re-sync, and the wallet's books read the new name", async () => {
    const { ledger, deps, now, close } = await followHolder(s);
    try {
      const named = async () => (await listAssets(ledger.db, await ensureTenant(ledger.db, "acme"))).find((a) => a.mint === s.mint);
      expect(await named()).toMatchObject({ symbol: "EXPRE", name: METADATA.name });

      // Nothing changed: the poll stores nothing and marks nothing.
      await pollMints(deps);
      expect((await ledger.db.get(...q<{ n: number }>`SELECT count(*) AS n FROM dirty_mints`))!.n).toBe(0);

      await s.rename("EXPRA", "Example Corp NewStock");
      await pollMints(deps);
      expect(await named()).toMatchObject({ symbol: "EXPRA", name: "Example Corp NewStock", source: "token-metadata" });
      await bookEverythingDirty(ledger.db, now());
      const position = JSON.parse(await portfolioQueries(ledger.db).portfolio(s.holder)).positions[0];
      expect(position.symbol).toBe("EXPRA");
      expect(JSON.parse((await actionQueries(ledger.db).listJson(s.holder, { limit: 1, offset: 0 })).rows[0]!).symbol).toBe("EXPRA");
    } finally {
      await close();
    }
  });
});

describe("a name a mint gives itself", () => {
  test("never takes the records of the feed's instrument with the same symbol", () => {
    const [feedMint, selfNamed, authority] = ["FeedMint1111111111111111111111111111111111", "SelfNamed111111111111111111111111111111111", "Auth111111111111111111111111111111111111111"];
    // The same change on both mints, at the time of the feed's record for ABCx.
    const updates = [feedMint, selfNamed].map((mint) => ({
      mint,
      signature: `sig-${mint}`,
      ixIndex: 0,
      slot: 10,
      blockTime: 1_780_000_000,
      multiplier: 1.01,
      effectiveTimestamp: 1_780_000_000,
      authority,
    }));
    const record = untaxedDividendRecord({
      eventId: "ev-1",
      xstockSymbol: "ABCx",
      effectiveTimeUtc: "2026-05-28T20:26:40.000Z",
      multiplierNew: "1.01",
      grossCashflowUsd: "1",
      netCashflowUsd: "1",
    });
    const wallet = (owner: string, mint: string) => ({
      owner,
      gaps: [],
      accounts: [{ owner, tokenAccount: `${owner}-acct`, mint, rawBalance: 100n, slot: 20 }],
      balanceChanges: [{ owner, tokenAccount: `${owner}-acct`, mint, signature: `buy-${owner}`, slot: 5, blockTime: 1_770_000_000, preRaw: 0n, postRaw: 100n }],
    });
    const out = runEngine({
      now: 1_790_000_000,
      instruments: [
        { mint: feedMint, symbol: "ABCx", name: null, underlying: null, isin: null, decimals: 8 },
        { mint: selfNamed, symbol: "ABCx", name: "Look-alike", underlying: null, isin: null, decimals: 8, source: "token-metadata", uri: null },
      ],
      mintStates: [],
      multiplierUpdates: updates,
      issuerRevisions: [{ record, sha256: "0".repeat(64), ingestedAt: "2026-05-01T00:00:00.000Z", edited: false }],
      wallets: [wallet("holderA", feedMint), wallet("holderB", selfNamed)],
    });
    expect(out.actions.map((a) => [a.owner, a.type])).toEqual([
      ["holderA", "cash_dividend"],
      ["holderB", "unknown"],
    ]);
    expect(out.actions[1]!.reason).toStartWith("no issuer feed for this mint: a multiplier change of +1%");
  });
});
