// `ca-ledger rates import <file>` (docs/cli.md#rates-import): the ECB's euro reference-rate history,
// streamed line by line twice: read through first (a bad file names its line and column, exit 1,
// and no ledger is opened), then stored in one transaction as it is read again (a line that went
// bad meanwhile rolls the whole import back). Memory holds one line, never the file. Importing
// the same file again changes nothing.
import { defineCommand } from "citty";
import { LineTooLong, readLinesCapped } from "../src/capped-read.ts";
import { readEcbHistory, RatesFileError } from "../src/domain/reference-rates.ts";
import { importRates, type RatesImport } from "../src/ledger/reference-rates.ts";
import { fail, openFrom, settingArgs } from "./common.ts";

/** The longest line read: the widest real line (41 currencies) is under 400 characters; every ISO 4217 code at 20 characters a rate is under 7,000. */
const MAX_LINE = 16 * 1024;

/** The file's currencies, and its days as they stream in; throws at a bad line or an unreadable file. */
const history = (file: string, today: string) => readEcbHistory(readLinesCapped(Bun.file(file).stream(), MAX_LINE), today);

/** Ends the command (exit 1) saying why the file was not imported; anything else is a bug. */
function refused(file: string, e: unknown): never {
  if (e instanceof RatesFileError || e instanceof LineTooLong) return fail(`${file} ${e.message}; nothing was imported`, 1);
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code) return fail(`cannot read ${file}: ${code}`, 1);
  throw e;
}

const importCommand = defineCommand({
  meta: { name: "import", description: "Import the ECB's euro reference-rate history (eurofxref-hist.csv) for the year report's currencies" },
  args: {
    file: { type: "positional", required: true, description: "The ECB history CSV (header Date,USD,JPY,…; rates per euro; N/A for gaps)" },
    json: { type: "boolean", description: "Print one JSON object" },
    ...settingArgs("rates"),
  },
  async run({ args }) {
    const file = String(args.file);
    const today = new Date().toISOString().slice(0, 10); // UTC: no rate of a later day exists yet
    try {
      for await (const _ of (await history(file, today)).days); // read through: every line checked, nothing kept
    } catch (e) {
      refused(file, e);
    }
    const { ledger } = await openFrom(args);
    let r: RatesImport;
    try {
      r = await importRates(ledger.db, await history(file, today));
    } catch (e) {
      await ledger.close();
      return refused(file, e);
    }
    await ledger.close();
    if (args.json) return void process.stdout.write(JSON.stringify(r) + "\n");
    process.stdout.write(`imported ${r.days} days (${r.first} to ${r.last}), ${r.currencies} currencies: ${r.added} rates added, ${r.changed} changed, ${r.unchanged} already stored\n`);
  },
});

export const ratesCommand = defineCommand({
  meta: { name: "rates", description: "Reference rates for reporting income in another currency" },
  subCommands: { import: importCommand },
});
