// The browser the dashboard tests drive, so that `npm ci && npm test` needs no system package:
// Debian's Chromium when the system has it (/usr/bin/chromium), else the headless Chromium that
// the npm package @sparticuz/chromium ships inside its tarball (brotli-compressed, x86-64 Linux),
// unpacked once per version under node_modules/.cache with the libraries it needs (NSS, NSPR,
// expat: the package's al2023 set) and a font, so it runs on a bare Debian too.
// CA_LEDGER_TEST_CHROMIUM=npm takes the npm one even where the system has Chromium (to test it);
// any other value is the path of a Chromium to use.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { repoRoot } from "../harness/index.ts";

export interface TestBrowser {
  executablePath: string;
  /** Where it came from, for the test's own message. */
  source: string;
  /** The environment the browser needs (libraries and fonts of the npm build); empty for the system's. */
  env: Record<string, string>;
}

export const systemChromium = "/usr/bin/chromium";
const npmPackage = "@sparticuz/chromium";

/** The system's Chromium when present, else the npm package's (unpacked on first use). */
export function testBrowser(choice = process.env.CA_LEDGER_TEST_CHROMIUM ?? "", system = systemChromium): TestBrowser {
  if (choice && choice !== "npm") return { executablePath: choice, source: `CA_LEDGER_TEST_CHROMIUM=${choice}`, env: {} };
  if (choice !== "npm" && existsSync(system)) return { executablePath: system, source: `${system} (the system's)`, env: {} };
  return npmChromium();
}

/** Unpacks the npm package's Chromium into node_modules/.cache/ca-ledger-chromium/<version>/ (once). */
export function npmChromium(): TestBrowser {
  const pkgDir = join(repoRoot, "node_modules", ...npmPackage.split("/"));
  const pkgJson = join(pkgDir, "package.json");
  if (!existsSync(pkgJson)) throw new Error(`no Chromium: neither ${systemChromium} nor the npm package ${npmPackage} (run npm ci)`);
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(`${npmPackage} ships Chromium for x86-64 Linux only; on ${process.platform}-${process.arch} install Chromium and set CA_LEDGER_TEST_CHROMIUM to its path`);
  }
  const version = (JSON.parse(readFileSync(pkgJson, "utf8")) as { version: string }).version;
  const dir = join(repoRoot, "node_modules", ".cache", "ca-ledger-chromium", version);
  const browser = {
    executablePath: join(dir, "chromium"),
    source: `${npmPackage}@${version} (npm)`,
    env: { LD_LIBRARY_PATH: join(dir, "lib"), FONTCONFIG_FILE: join(dir, "fonts.conf") },
  };
  if (existsSync(join(dir, "complete"))) return browser;

  // Unpacked beside, then renamed into place: a run stopped half-way leaves no half browser.
  const work = `${dir}.partial-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const unbrotli = (name: string) => brotliDecompressSync(readFileSync(join(pkgDir, "bin", name)));
  writeFileSync(join(work, "chromium"), unbrotli("chromium.br"));
  chmodSync(join(work, "chromium"), 0o755);
  untar(unbrotli("al2023.tar.br"), work); // lib/: libnss3, libnspr4, libexpat... for a system without them
  untar(unbrotli("fonts.tar.br"), work); // fonts/: one family, so text has a face on a system with no fonts
  writeFileSync(
    join(work, "fonts.conf"),
    `<?xml version="1.0"?>\n<fontconfig>\n  <dir>${join(dir, "fonts")}</dir>\n  <dir>/usr/share/fonts</dir>\n  <cachedir>${join(dir, "fonts-cache")}</cachedir>\n</fontconfig>\n`,
  );
  writeFileSync(join(work, "complete"), `${npmPackage}@${version}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(work, dir);
  return browser;
}

/** Extracts a tar archive under `into` (tar is part of every Linux base system). */
function untar(tar: Buffer, into: string): void {
  const r = Bun.spawnSync(["tar", "-x", "-C", into], { stdin: tar, stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`tar could not unpack the browser's files: ${r.stderr.toString()}`);
}
