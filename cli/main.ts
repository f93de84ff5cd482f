#!/usr/bin/env bun
// The binary's entry: one executable for the server, the worker and every operator command.
import { defineCommand, runMain } from "citty";
import { keysCommand } from "./keys.ts";
import { serveCommand } from "./serve.ts";
import { version } from "../src/version.ts";

if (!process.env.NO_COLOR && !process.stdout.isTTY) process.env.NO_COLOR = "1";

const main = defineCommand({
  meta: { name: "ca-ledger", version, description: "Corporate actions ledger for tokenized stocks on Solana" },
  subCommands: { serve: serveCommand, keys: keysCommand },
});

runMain(main);
