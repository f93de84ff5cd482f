// `ca-ledger import issuer-records <file>`: an operator's corporate-action records for mints no
// issuer feed covers (docs/other-issuers.md#operator-records). The whole file is checked first
// and stored in one transaction (a bad row names itself and nothing is written); storing marks
// each record's mint dirty, and the wallets holding it are booked here, as `ca-ledger sync` does.
import { defineCommand } from "citty";
import { readFileSync } from "node:fs";
import { bookEverythingDirty, totalsOf } from "../src/ledger/booking.ts";
import { feedCoveredMints } from "../src/ledger/queries/assets.ts";
import { readDatasetLabel } from "../src/ledger/queries/common.ts";
import { storeObservations } from "../src/ledger/store.ts";
import { OperatorRecordsError, parseOperatorRecords } from "../src/sources/operator/records.ts";
import { fail, openFrom, settingArgs } from "./common.ts";

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
        fail(`${file}: record ${first.eventId} (version ${first.version}) is for ${covered[0]!.symbol} (${covered[0]!.mint}), a mint the issuer feed covers`
          + `${covered.length > 1 ? `, as are ${covered.length - 1} more of the file's mints` : ""}; it would change the books of every tenant holding it. `
          + "Pass --override-feed to import it anyway; nothing was imported", 1);
      }
      const stored = await storeObservations(ledger.db, { operatorRecords: records });
      const booked = totalsOf(await bookEverythingDirty(ledger.db));
      const summary = {
        records: records.length, newRevisions: stored.issuerRevisionsAdded, edited: stored.editedRevisions, mints: new Set(records.map((r) => r.mint)).size,
        recognitions: booked.recognitions, reversals: booked.reversals, overridesFeed: covered,
      };
      if (args.json) process.stdout.write(JSON.stringify(summary) + "\n");
      else {
        process.stdout.write(`${summary.records} record(s) read, ${summary.newRevisions} new revision(s) stored with source operator (${summary.mints} mint(s)); `
          + `${summary.recognitions} recognition(s), ${summary.reversals} reversal(s) booked\n`);
        if (covered.length) {
          process.stdout.write(`override: ${covered.map((c) => `${c.symbol} (${c.mint})`).join(", ")} ${covered.length > 1 ? "are mints" : "is a mint"} the issuer feed covers; `
            + "these records are matched beside the feed's own records for every tenant holding them\n");
        }
      }
    } finally {
      await ledger.close();
    }
  },
});

export const importCommand = defineCommand({
  meta: { name: "import", description: "Import operator data into the ledger" },
  subCommands: { "issuer-records": issuerRecords },
});
