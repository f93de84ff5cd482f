// `ca-ledger rates import <file>` (docs/cli.md#rates-import): the ECB's euro reference-rate history,
// read whole before anything is written, then stored in one transaction. A bad file names its line
// and column and changes nothing (exit 1); importing the same file again changes nothing.
import { defineCommand } from "citty";
import { readFileSync } from "node:fs";
import { parseEcbHistory, RatesFileError, type EcbHistory } from "../src/domain/reference-rates.ts";
import { importRates } from "../src/ledger/reference-rates.ts";
import { fail, openFrom, settingArgs } from "./common.ts";

function readHistory(file: string): EcbHistory {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    return fail(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 1);
  }
  try {
    return parseEcbHistory(text);
  } catch (e) {
    if (e instanceof RatesFileError) return fail(`${file} ${e.message}; nothing was imported`, 1);
    throw e;
  }
}

const importCommand = defineCommand({
  meta: { name: "import", description: "Import the ECB's euro reference-rate history (eurofxref-hist.csv) for the year report's currencies" },
  args: {
    file: { type: "positional", required: true, description: "The ECB history CSV (header Date,USD,JPY,…; rates per euro; N/A for gaps)" },
    json: { type: "boolean", description: "Print one JSON object" },
    ...settingArgs("rates"),
  },
  async run({ args }) {
    const history = readHistory(String(args.file));
    const { ledger } = await openFrom(args);
    try {
      const r = await importRates(ledger.db, history);
      if (args.json) return void process.stdout.write(JSON.stringify(r) + "\n");
      process.stdout.write(
        `imported ${r.days} days (${r.first} to ${r.last}), ${r.currencies} currencies: ${r.added} rates added, ${r.changed} changed, ${r.unchanged} already stored\n`,
      );
    } finally {
      await ledger.close();
    }
  },
});

export const ratesCommand = defineCommand({
  meta: { name: "rates", description: "Reference rates for reporting income in another currency" },
  subCommands: { import: importCommand },
});
