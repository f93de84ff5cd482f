// A mint's own Token-2022 metadata is anyone's to write: a name or symbol holding bidirectional
// controls, zero-width or control characters is read without them (docs/sources.md#text-fields).
// The bytes are the real program's: LiteSVM runs Token-2022's InitializeTokenMetadata.
import { describe, expect, test } from "bun:test";
import { LiteSVM } from "litesvm";
import { generateKeyPairSigner, lamports } from "@solana/kit";
import { decodeMintBytes } from "../../src/sources/solana/decode.ts";
import { readMintAccount } from "../../src/sources/solana/chain-read/mint-states.ts";
import { createScaledMintInstructions, recordSvm } from "../support/litesvm-chain.ts";
import { emptyChain } from "../support/rpc-server.ts";

/** A Scaled UI Amount mint whose metadata says `name` and `symbol`, as the program writes it. */
async function mintNamed(name: string, symbol: string) {
  const svm = new LiteSVM();
  const [issuer, mint] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
  svm.airdrop(issuer.address, lamports(10_000_000_000n));
  const chain = recordSvm(svm, emptyChain(1000));
  await chain.send("create", issuer, createScaledMintInstructions(svm, issuer, mint, 8, { name, symbol, uri: "https://issuer.example/\u200bm.json" }), [issuer.address]);
  return { mint: mint.address as string, account: chain.account(mint.address) };
}

const utf8 = (s: string) => Buffer.from(s, "utf8");

describe("text in a mint's own metadata", () => {
  test("bidirectional, zero-width and control characters are removed from the name, symbol and uri the ledger keeps", async () => {
    // U+202E RIGHT-TO-LEFT OVERRIDE shows "xADVN" as "NVDAx"; U+200B and U+2060 are invisible; U+0007 is BEL.
    const { mint, account } = await mintNamed("NVIDIA\u200b xStock\u0007\u2066", "\u202exADVN\u2060");
    // The program stored the characters as their UTF-8 bytes, and our decoder reads them back.
    for (const c of ["\u202e", "\u200b", "\u2060", "\u2066"]) expect(Buffer.from(account.data).includes(utf8(c))).toBe(true);
    expect(decodeMintBytes(account.data).metadata).toMatchObject({ name: "NVIDIA\u200b xStock\u0007\u2066", symbol: "\u202exADVN\u2060" });

    const read = readMintAccount(mint, { data: Buffer.from(account.data).toString("base64"), owner: account.owner }, { slot: 1, observedAt: 1 });
    expect(read.instrument).toMatchObject({ mint, symbol: "xADVN", name: "NVIDIA xStock", uri: "https://issuer.example/m.json", source: "token-metadata" });
  });

  test("a name of invisible characters only is no name; a cut never splits a character in two", async () => {
    const invisible = await mintNamed("\u200b\u200c\u200d", "\u202e\u202c");
    expect(readMintAccount(invisible.mint, { data: Buffer.from(invisible.account.data).toString("base64"), owner: invisible.account.owner }, { slot: 1, observedAt: 1 }).instrument).toBeNull();

    // 31 letters then an emoji (two UTF-16 units): the 32-unit symbol cut would split it.
    const long = await mintNamed("Long", `${"A".repeat(31)}\u{1F600}B`);
    const symbol = readMintAccount(long.mint, { data: Buffer.from(long.account.data).toString("base64"), owner: long.account.owner }, { slot: 1, observedAt: 1 }).instrument!.symbol;
    expect(symbol).toBe("A".repeat(31));
    expect(symbol.isWellFormed()).toBe(true);
  });
});
