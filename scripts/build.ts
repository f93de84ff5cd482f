// Builds the single executable: the CLI entry and the sync worker thread's entry (a Bun Worker
// must be an entry point of a compiled build). The flags avoid known traps of compiled Elysia
// apps: no identifier minification (Elysia reads handler sources), NODE_ENV baked in, and no
// .env or bunfig.toml read from whatever folder the binary starts in.
// Usage: bun scripts/build.ts [outfile]   (default dist/ca-ledger; this machine's platform)
// scripts/build-release.ts builds the same for every platform we ship (npm run build:all).
import { join } from "node:path";

export const root = join(import.meta.dir, "..");

/**
 * `bun build` arguments for one executable. `target` is Bun's (`bun` for this machine,
 * `bun-linux-arm64`...); `runtime` is the Bun executable of that target to embed, when it is not
 * the running one (a cross-compile takes it from a file instead of downloading it).
 */
export function buildArgs(outfile: string, target = "bun", runtime?: string): string[] {
  return [
    "build",
    "--compile",
    "--minify-syntax",
    "--minify-whitespace",
    "--define",
    'process.env.NODE_ENV="production"',
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    "--target",
    target,
    ...(runtime ? ["--compile-executable-path", runtime] : []),
    "cli/main.ts",
    "src/sync/thread.ts",
    "--outfile",
    outfile,
  ];
}

if (import.meta.main) {
  const outfile = process.argv[2] ?? join(root, "dist", "ca-ledger");
  const r = Bun.spawnSync([process.execPath, ...buildArgs(outfile)], { cwd: root, stdout: "inherit", stderr: "inherit" });
  process.exit(r.exitCode ?? 1);
}
