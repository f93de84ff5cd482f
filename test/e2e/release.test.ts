// `npm run build:all` (scripts/build-release.ts), as a release is made: one command builds the
// executable for every platform we ship into a folder with SHA256SUMS beside them. Each file is
// an executable of its platform's format and CPU holding ca-ledger; the checksums file checks (by
// `sha256sum -c` where the machine has it, and by this test's own sums); BUILD-INFO.json names
// each runtime's npm package and the sha512 package-lock.json pins; a runtime tarball that is not
// the pinned one is refused. The one this machine can run is run: --help, --version, and
// `serve --demo` answering /v1/health.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { binaryName, pinned, platforms, unpackRuntime } from "../../scripts/build-release.ts";
import { repoRoot, tempDir, waitFor } from "../harness/index.ts";
import { run } from "../support/run.ts";

const out = tempDir("ca-ledger-release-");
const bun = join(repoRoot, "node_modules", ".bin", "bun");
const version = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
let build: Awaited<ReturnType<typeof run>>;

beforeAll(async () => {
  // The first build on a machine fetches four runtimes (about 50 MB each) through npm.
  build = await run([bun, "run", "scripts/build-release.ts", out], { cwd: repoRoot, timeoutMs: 590_000 });
}, 600_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** What a file's header says it is: format, CPU (ELF e_machine, Mach-O cputype, PE machine). */
function executableKind(file: string): string {
  const b = readFileSync(file).subarray(0, 4096);
  if (b.readUInt32BE(0) === 0x7f454c46) return `elf ${({ 62: "x64", 183: "arm64" } as Record<number, string>)[b.readUInt16LE(18)] ?? b.readUInt16LE(18)}`;
  if (b.readUInt32LE(0) === 0xfeedfacf) return `macho ${({ 16777223: "x64", 16777228: "arm64" } as Record<number, string>)[b.readUInt32LE(4)] ?? b.readUInt32LE(4)}`;
  if (b.toString("latin1", 0, 2) === "MZ") {
    const pe = b.readUInt32LE(0x3c);
    if (b.toString("latin1", pe, pe + 4) === "PE\0\0") return `pe ${b.readUInt16LE(pe + 4) === 0x8664 ? "x64" : b.readUInt16LE(pe + 4)}`;
  }
  return "unknown";
}

describe("npm run build:all", () => {
  // Reading five 100 MB files on a loaded machine: room, not a time being checked.
  const reading = 120_000;

  test("builds every platform's executable, SHA256SUMS and BUILD-INFO.json, and nothing else", () => {
    expect({ code: build.code, stderr: build.code === 0 ? "" : build.stderr }).toEqual({ code: 0, stderr: "" });
    expect(readdirSync(out).sort()).toEqual([...platforms.map(binaryName), "SHA256SUMS", "BUILD-INFO.json"].sort());
    expect(platforms.map(binaryName).sort()).toEqual(["ca-ledger-darwin-arm64", "ca-ledger-darwin-x64", "ca-ledger-linux-arm64", "ca-ledger-linux-x64", "ca-ledger-windows-x64.exe"]);
  });

  test(
    "each file is an executable of its platform's format and CPU, with ca-ledger inside",
    () => {
      const expected: Record<string, string> = { "linux-x64": "elf x64", "linux-arm64": "elf arm64", "darwin-arm64": "macho arm64", "darwin-x64": "macho x64", "windows-x64": "pe x64" };
      for (const p of platforms) {
        const file = join(out, binaryName(p));
        expect({ platform: p.name, kind: executableKind(file) }).toEqual({ platform: p.name, kind: expected[p.name]! });
        // The CLI's description (cli/main.ts) is in the embedded bundle: the runtime carries our code.
        expect({ platform: p.name, ours: readFileSync(file).includes("Corporate actions ledger for tokenized stocks on Solana") }).toEqual({ platform: p.name, ours: true });
      }
    },
    reading,
  );

  test(
    "SHA256SUMS lists each executable with its SHA-256, in the format sha256sum -c checks",
    async () => {
      const lines = readFileSync(join(out, "SHA256SUMS"), "utf8").trimEnd().split("\n");
      expect(lines).toEqual(
        platforms
          .map(binaryName)
          .sort()
          .map((name) => `${sha256(join(out, name))}  ${name}`),
      );
      const sha256sum = Bun.which("sha256sum");
      if (sha256sum) {
        const checked = await run([sha256sum, "-c", "SHA256SUMS"], { cwd: out });
        expect({ code: checked.code, out: checked.stdout.trim().split("\n").sort() }).toEqual({ code: 0, out: platforms.map((p) => `${binaryName(p)}: OK`).sort() });
      } else {
        console.log("release: sha256sum not on this machine (Debian package coreutils); the sums were checked by this test alone");
      }
    },
    reading,
  );

  test(
    "BUILD-INFO.json names each executable's Bun runtime: its npm package at the pinned Bun's version and the sha512 package-lock.json pins",
    () => {
      const info = JSON.parse(readFileSync(join(out, "BUILD-INFO.json"), "utf8"));
      expect(info.version).toBe(version);
      expect(info.compiler).toBe(`bun@${Bun.version}`);
      expect(info.binaries).toEqual(
        platforms.map((p) => ({
          platform: p.name,
          file: binaryName(p),
          bunTarget: p.bunTarget,
          runtime: `${p.npmPackage}@${Bun.version}`,
          integrity: pinned(p.npmPackage).integrity,
          sha256: sha256(join(out, binaryName(p))),
        })),
      );
    },
    reading,
  );

  test(
    "a runtime tarball whose sha512 is not the one package-lock.json pins is refused",
    () => {
      const p = platforms.find((x) => x.name === "linux-arm64")!;
      const pin = pinned(p.npmPackage);
      const wrong = { ...pin, integrity: `sha512-${Buffer.alloc(64).toString("base64")}` };
      const into = join(out, "..", `${out.split("/").pop()}-refused`);
      expect(() => unpackRuntime(p, wrong, into)).toThrow(/package-lock.json pins sha512-AAAA.*not used/);
      expect(existsSync(into)).toBe(false);
    },
    reading,
  );
});

describe("the executable for this machine", () => {
  const host = platforms.find((p) => p.name === `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`);
  const binary = () => join(out, binaryName(host!));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: out, NO_COLOR: "1", LOG_LEVEL: "error", SOLANA_RPC_URL: "http://127.0.0.1:9", XSTOCKS_API_URL: "http://127.0.0.1:9/api/v2" };

  test("is one of those built", () => {
    expect(host?.name ?? `${process.platform}-${process.arch} (not built)`).toBe(`${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`);
  });

  test("--help and --version", async () => {
    const help = await run([binary(), "--help"], { env, cwd: out });
    expect({ code: help.code, usage: help.stdout.includes("Usage: ca-ledger <command>") && help.stdout.includes("serve") }).toEqual({ code: 0, usage: true });
    const v = await run([binary(), "--version"], { env, cwd: out });
    expect({ code: v.code, version: v.stdout.trim() }).toEqual({ code: 0, version });
  }, 60_000);

  test("serve --demo answers /v1/health, then stops on SIGTERM", async () => {
    const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = listener.port;
    listener.stop(true);
    const dataDir = join(tempDir("ca-ledger-release-demo-"), "d");
    const proc = Bun.spawn([binary(), "serve", "--demo", "--port", String(port), "--data-dir", dataDir], { env, cwd: out, stdout: "ignore", stderr: "pipe" });
    try {
      const health = await waitFor(
        () =>
          fetch(`http://127.0.0.1:${port}/v1/health`).then(
            async (r) => ({ status: r.status, body: await r.json() }),
            () => ({ status: 0, body: null }),
          ),
        (h) => h.status === 200 || proc.exitCode !== null,
        60_000,
      );
      expect({ status: health.status, ok: health.body?.status, dataset: health.body?.dataset?.kind }).toEqual({ status: 200, ok: "ok", dataset: "synthetic" });
    } finally {
      proc.kill("SIGTERM");
      const killer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      expect(await proc.exited).toBe(0);
      clearTimeout(killer);
      rmSync(join(dataDir, ".."), { recursive: true, force: true });
    }
  }, 90_000);
});
