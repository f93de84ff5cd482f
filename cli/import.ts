// `ca-ledger import issuer-records <file>`: an operator's corporate-action records for mints no
// issuer feed covers (docs/other-issuers.md#operator-records). The whole file is checked first
// and stored in one transaction (a bad row names itself and nothing is written); storing marks
// each record's mint dirty, and the wallets holding it are booked here, as `ca-ledger sync` does.
//
// `ca-ledger import cost-basis <file>`: an operator's declarations of what the chain cannot show
// (docs/lots.md#declared-cost-basis), about wallets a tenant follows. Checked whole, then stored in
// one transaction as operator observations; lots are derived per request, so nothing is booked.
import { defineCommand } from "citty";
import { readFileSync } from "node:fs";
import { bookEverythingDirty, totalsOf } from "../src/ledger/booking.ts";
import { feedCoveredMints } from "../src/ledger/queries/assets.ts";
import { readDatasetLabel } from "../src/ledger/queries/common.ts";
import { storeCostBasis, unfollowedOwners } from "../src/ledger/cost-basis.ts";
import { storeObservations } from "../src/ledger/store.ts";
import { CostBasisError, parseCostBasisLines } from "../src/sources/operator/cost-basis.ts";
import { OperatorRecordsError, parseOperatorRecords } from "../src/sources/operator/records.ts";
import { fail, openExisting, openFrom, settingArgs } from "./common.ts";

const issuerRecords = defineCommand({
  meta: { name: "issuer-records", description: "Store operator issuer records (JSON array, JSON lines or CSV, each with its mint) and book the wallets holding those mints" },
  args: {
    file: { type: "positional", required: true, description: "The records: JSON (an array, or one object per line) or CSV with the same columns" },
    json: { type: "boolean", description: "Print one JSON object" },
    "override-feed": { type: "boolean", description: "Also import records for mints the issuer feed covers (they change the books of every tenant holding them)" },
    ...settingArgs("import"),
  },
  async run({ args }) {
    const file = String(args.file);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      return fail(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 1);
    }
    let records;
    try {
      records = parseOperatorRecords(text, file);
    } catch (e) {
      if (e instanceof OperatorRecordsError) return fail(`${file}: ${e.message}; nothing was imported`, 1);
      throw e;
    }
    const { ledger } = await openFrom(args);
    try {
      if ((await readDatasetLabel(ledger.db))?.kind === "synthetic") fail("this data dir holds the synthetic demo ledger; import records into a live one (pass --data-dir)", 1);
      // A record for a mint the feed covers is matched beside the feed's own for every tenant: only on purpose (docs/other-issuers.md#records-for-a-mint-the-feed-covers).
      const covered = await feedCoveredMints(ledger.db, [...new Set(records.map((r) => r.mint))]);
      if (covered.length && !args["override-feed"]) {
        const first = records.find((r) => r.mint === covered[0]!.mint)!;
        fail(
          `${file}: record ${first.eventId} (version ${first.version}) is for ${covered[0]!.symbol} (${covered[0]!.mint}), a mint the issuer feed covers` +
            `${covered.length > 1 ? `, as are ${covered.length - 1} more of the file's mints` : ""}; it would change the books of every tenant holding it. ` +
            "Pass --override-feed to import it anyway; nothing was imported",
          1,
        );
      }
      const stored = await storeObservations(ledger.db, { operatorRecords: records });
      const booked = totalsOf(await bookEverythingDirty(ledger.db));
      const summary = {
        records: records.length,
        newRevisions: stored.issuerRevisionsAdded,
        edited: stored.editedRevisions,
        mints: new Set(records.map((r) => r.mint)).size,
        recognitions: booked.recognitions,
        reversals: booked.reversals,
        overridesFeed: covered,
      };
      if (args.json) process.stdout.write(JSON.stringify(summary) + "\n");
      else {
        process.stdout.write(
          `${summary.records} record(s) read, ${summary.newRevisions} new revision(s) stored with source operator (${summary.mints} mint(s)); ` +
            `${summary.recognitions} recognition(s), ${summary.reversals} reversal(s) booked\n`,
        );
        if (covered.length) {
          process.stdout.write(
            `override: ${covered.map((c) => `${c.symbol} (${c.mint})`).join(", ")} ${covered.length > 1 ? "are mints" : "is a mint"} the issuer feed covers; ` +
              "these records are matched beside the feed's own records for every tenant holding them\n",
          );
        }
      }
    } finally {
      await ledger.close();
    }
  },
});

const costBasis = defineCommand({
  meta: { name: "cost-basis", description: "Store an operator's cost-basis declarations (CSV owner,signature,costUsd or owner,mint,acquiredAt,units,costUsd) about wallets a tenant follows" },
  args: {
    file: { type: "positional", required: true, description: "The declarations: CSV whose header names one of the two shapes" },
    json: { type: "boolean", description: "Print one JSON object" },
    ...settingArgs("import"),
  },
  async run({ args }) {
    const file = String(args.file);
    // Each refusal names its code (docs/lots.md#declared-cost-basis); with --json, as the API's error body on stderr.
    const refuse = (code: string, message: string): never => {
      if (!args.json) return fail(`${message} (${code})`, 1);
      process.stderr.write(JSON.stringify({ error: message, code }) + "\n");
      return process.exit(1);
    };
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      return refuse("unreadable_file", `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    let declarations;
    try {
      declarations = parseCostBasisLines(text, new Date().toISOString().slice(0, 10));
    } catch (e) {
      if (e instanceof CostBasisError) return refuse("invalid_cost_basis", `${file}: ${e.message}; nothing was imported`);
      throw e;
    }
    const ledger = await openExisting(args, { migrate: true });
    try {
      // A declaration is about a wallet, whichever tenants follow it; one no tenant follows is a typo until shown otherwise.
      const unfollowed = await unfollowedOwners(
        ledger.db,
        declarations.map((d) => d.declaration.owner),
      );
      const stray = declarations.find((d) => unfollowed.has(d.declaration.owner));
      if (stray)
        refuse(
          "unknown_wallet",
          `${file}: line ${stray.line}, owner: no tenant follows ${stray.declaration.owner}; follow the wallet first (POST /v1/wallets/sync or ca-ledger sync); nothing was imported`,
        );
      const stored = await storeCostBasis(
        ledger.db,
        declarations.map((d) => d.declaration),
      );
      const summary = { declarations: declarations.length, stored: stored.added, alreadyStored: stored.known, wallets: [...new Set(declarations.map((d) => d.declaration.owner))].sort() };
      if (args.json) process.stdout.write(JSON.stringify(summary) + "\n");
      else {
        process.stdout.write(
          `${summary.declarations} declaration(s) read: ${summary.stored} stored with source operator, ${summary.alreadyStored} already stored; ` +
            `${summary.wallets.length} wallet(s): ${summary.wallets.join(", ")}\n`,
        );
      }
    } finally {
      await ledger.close();
    }
  },
});

export const importCommand = defineCommand({
  meta: { name: "import", description: "Import operator data into the ledger" },
  subCommands: { "issuer-records": issuerRecords, "cost-basis": costBasis },
});
