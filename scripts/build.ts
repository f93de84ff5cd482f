// Builds the single executable: the CLI entry and the sync worker thread's entry (a Bun Worker
// must be an entry point of a compiled build). The flags avoid known traps of compiled Elysia
// apps: no identifier minification (Elysia reads handler sources), NODE_ENV baked in, and no
// .env or bunfig.toml read from whatever folder the binary starts in.
// Usage: bun scripts/build.ts [outfile]   (default dist/ca-ledger)
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const outfile = process.argv[2] ?? join(root, "dist", "ca-ledger");
const args = [
  "build", "--compile", "--minify-syntax", "--minify-whitespace", "--define", 'process.env.NODE_ENV="production"',
  "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", "--target", "bun",
  "cli/main.ts", "src/sync/thread.ts", "--outfile", outfile,
];
const r = Bun.spawnSync([process.execPath, ...args], { cwd: root, stdout: "inherit", stderr: "inherit" });
process.exit(r.exitCode ?? 1);
