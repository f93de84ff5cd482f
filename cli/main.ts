#!/usr/bin/env bun
// The binary's entry: one executable for the server, the worker and every operator command.
import "./no-color.ts"; // first: citty reads NO_COLOR when it loads
import { defineCommand, runMain } from "citty";
import { keysCommand } from "./keys.ts";
import { serveCommand } from "./serve.ts";
import { syncCommand } from "./sync.ts";
import { version } from "../src/version.ts";


const main = defineCommand({
  meta: { name: "ca-ledger", version, description: "Corporate actions ledger for tokenized stocks on Solana" },
  subCommands: { serve: serveCommand, keys: keysCommand, sync: syncCommand },
});

runMain(main);
