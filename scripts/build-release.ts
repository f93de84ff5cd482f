// Builds ca-ledger for the machines people run it on, all from this one machine:
// <outdir>/ca-ledger-<os>-<arch>[.exe] for linux-x64, linux-arm64, darwin-arm64, darwin-x64 and
// windows-x64, SHA256SUMS beside them (the format `sha256sum -c` reads) and BUILD-INFO.json.
// Each executable is this repository's code compiled by the pinned Bun (node_modules/bun) onto
// the Bun runtime of its platform: the npm package @oven/bun-<os>-<arch> of the same version,
// which package-lock.json pins with its sha512. Bun would download that same tarball itself; we
// fetch it with npm instead (npm's registry, proxy and cache settings apply, and a cached one
// needs no network) and check it against the lock before anything of it is used.
// docs/install.md#where-each-binary-comes-from says the same for the people who install it.
// Usage: bun scripts/build-release.ts [outdir]   (default dist/release; `npm run build:all`)
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { buildArgs, root } from "./build.ts";

export interface Platform {
  /** `<os>-<arch>`, as in the file name. */
  name: string;
  /** `bun build --target`. */
  bunTarget: string;
  /** The npm package that holds this platform's Bun runtime, and its path inside it. */
  npmPackage: string;
  executable: string;
}

export const platforms: Platform[] = [
  { name: "linux-x64", bunTarget: "bun-linux-x64", npmPackage: "@oven/bun-linux-x64", executable: "bin/bun" },
  { name: "linux-arm64", bunTarget: "bun-linux-arm64", npmPackage: "@oven/bun-linux-aarch64", executable: "bin/bun" },
  { name: "darwin-arm64", bunTarget: "bun-darwin-arm64", npmPackage: "@oven/bun-darwin-aarch64", executable: "bin/bun" },
  { name: "darwin-x64", bunTarget: "bun-darwin-x64", npmPackage: "@oven/bun-darwin-x64", executable: "bin/bun" },
  { name: "windows-x64", bunTarget: "bun-windows-x64", npmPackage: "@oven/bun-windows-x64", executable: "bin/bun.exe" },
];

export const binaryName = (p: Platform) => `ca-ledger-${p.name}${p.executable.endsWith(".exe") ? ".exe" : ""}`;

export interface Pinned {
  version: string;
  integrity: string;
}

/** What package-lock.json pins for a runtime package; it must be the running Bun's version. */
export function pinned(pkg: string): Pinned {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as { packages: Record<string, Partial<Pinned>> };
  const entry = lock.packages[`node_modules/${pkg}`];
  if (!entry?.version || !entry.integrity) throw new Error(`package-lock.json pins no ${pkg}: run npm install`);
  if (entry.version !== Bun.version) throw new Error(`package-lock.json pins ${pkg}@${entry.version} but this is Bun ${Bun.version}: run ./node_modules/.bin/bun scripts/build-release.ts`);
  return { version: entry.version, integrity: entry.integrity };
}

/** The lock's `sha512-<base64>` of a file. */
const integrityOf = (file: string) => `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`;

/**
 * The platform's Bun runtime, as a file: fetched with npm and checked (unpackRuntime), kept
 * under node_modules/.cache for the next build. (npm ci's own copy of this machine's package is
 * not used: Bun's install script moves it.)
 */
function runtime(p: Platform): { file: string; pin: Pinned } {
  const pin = pinned(p.npmPackage);
  const dir = join(root, "node_modules", ".cache", "ca-ledger-runtimes", `${p.npmPackage.replace("/", "+")}@${pin.version}`);
  const file = join(dir, basename(p.executable));
  if (!existsSync(file)) {
    const partial = `${dir}.partial-${process.pid}`;
    unpackRuntime(p, pin, partial);
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir); // in place at once: a stopped build leaves no half runtime
  }
  return { file, pin };
}

/**
 * Fetches the runtime package's tarball with `npm pack` (npm's registry, proxy and cache), and
 * unpacks its executable into `into` only if the tarball's sha512 is the one pinned.
 */
export function unpackRuntime(p: Platform, pin: Pinned, into: string): string {
  const work = mkdtempSync(join(tmpdir(), "ca-ledger-runtime-"));
  try {
    const pack = Bun.spawnSync(["npm", "pack", `${p.npmPackage}@${pin.version}`, "--json", "--pack-destination", work], { cwd: work, stdout: "pipe", stderr: "pipe" });
    if (pack.exitCode !== 0) throw new Error(`npm pack ${p.npmPackage}@${pin.version} failed: ${pack.stderr.toString().trim()}`);
    const tarball = join(work, (JSON.parse(pack.stdout.toString()) as { filename: string }[])[0]!.filename);
    const got = integrityOf(tarball);
    if (got !== pin.integrity) throw new Error(`${p.npmPackage}@${pin.version}: the tarball's sha512 is ${got}, package-lock.json pins ${pin.integrity}; not used`);
    const untar = Bun.spawnSync(["tar", "-xzf", tarball, "-C", work, `package/${p.executable}`], { stderr: "pipe" });
    if (untar.exitCode !== 0) throw new Error(`could not unpack ${p.npmPackage}: ${untar.stderr.toString().trim()}`);
    mkdirSync(into, { recursive: true });
    const file = join(into, basename(p.executable));
    copyFileSync(join(work, "package", p.executable), file);
    chmodSync(file, 0o755);
    return file;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const sha256Of = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** Builds every platform into `outDir`; returns the SHA256SUMS lines. */
export function buildRelease(outDir: string): string[] {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const built: { platform: string; file: string; bunTarget: string; runtime: string; integrity: string; sha256: string }[] = [];
  for (const p of platforms) {
    const { file, pin } = runtime(p);
    const out = join(outDir, binaryName(p));
    const r = Bun.spawnSync([process.execPath, ...buildArgs(out, p.bunTarget, file)], { cwd: root, stdout: "inherit", stderr: "inherit" });
    if (r.exitCode !== 0) throw new Error(`bun build for ${p.name} failed (exit ${r.exitCode})`);
    built.push({ platform: p.name, file: basename(out), bunTarget: p.bunTarget, runtime: `${p.npmPackage}@${pin.version}`, integrity: pin.integrity, sha256: sha256Of(out) });
  }
  const sums = [...built].sort((a, b) => a.file.localeCompare(b.file)).map((b) => `${b.sha256}  ${b.file}`);
  writeFileSync(join(outDir, "SHA256SUMS"), sums.join("\n") + "\n");
  const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
  const commit = Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: root, stdout: "pipe", stderr: "ignore" }).stdout.toString().trim() || null;
  writeFileSync(join(outDir, "BUILD-INFO.json"), JSON.stringify({ version, commit, compiler: `bun@${Bun.version}`, binaries: built }, null, 2) + "\n");
  return sums;
}

if (import.meta.main) {
  const outDir = process.argv[2] ?? join(root, "dist", "release");
  try {
    const sums = buildRelease(outDir);
    console.log(`\n${outDir}:\n${sums.join("\n")}\nCheck with: cd ${outDir} && sha256sum -c SHA256SUMS`);
  } catch (e) {
    console.error(`build:all: ${(e as Error).message}`);
    process.exit(1);
  }
}
