// The compiled binary as a user runs it, for the trust tests: `serve` until it answers, any command
// with a deadline (a command that should have exited but keeps running is a finding, not a hang),
// and the same under a shell that sets the umask first.
import { ensureBinary } from "../ops/helpers.ts";

export type Env = Record<string, string>;

/** The line a command writes on stderr before it creates a new ledger (docs/cli.md#new-ledgers). */
export const newLedgerLine = /^ca-ledger: no ledger at \S+ yet; creating a new one there\.[^\n]*\n/;

/** What the binary sees: no inherited settings, and no network (closed loopback ports). */
export function baseEnv(home: string, extra: Env = {}): Env {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    NO_COLOR: "1",
    LOG_LEVEL: "error",
    SOLANA_RPC_URL: "http://127.0.0.1:9",
    XSTOCKS_API_URL: "http://127.0.0.1:9/api/v2",
    ...extra,
  };
}

/** argv for the binary, optionally through `sh` with a umask set first. */
export function argv(args: string[], umask?: string): string[] {
  const bin = ensureBinary();
  return umask ? ["sh", "-c", `umask ${umask}; exec "$0" "$@"`, bin, ...args] : [bin, ...args];
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs to the end, or is killed after `timeoutMs` (then `code` is null). */
export async function runFor(args: string[], env: Env, timeoutMs = 10_000, umask?: string): Promise<Finished> {
  const proc = Bun.spawn(argv(args, umask), { env, stdout: "pipe", stderr: "pipe" });
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    proc.kill("SIGKILL");
  }, timeoutMs);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code: killed ? null : code, stdout, stderr };
}

export async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

export interface Served {
  proc: ReturnType<typeof Bun.spawn>;
  url: string;
  port: number;
  stdout(): string;
  stderr(): string;
  /** SIGTERM (or another signal), then the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
}

function collect(stream: ReadableStream<Uint8Array>, sink: { text: string }): void {
  void (async () => {
    const dec = new TextDecoder();
    for await (const chunk of stream) sink.text += dec.decode(chunk, { stream: true });
  })();
}

/** `serve --port P ...` until /v1/health answers 200 (and, with --demo, the key is printed). */
export async function serveBinary(args: string[], env: Env, opts: { port?: number; umask?: string } = {}): Promise<Served> {
  const port = opts.port ?? (await freePort());
  const proc = Bun.spawn(argv(["serve", "--port", String(port), ...args], opts.umask), { env, stdout: "pipe", stderr: "pipe" });
  const out = { text: "" };
  const err = { text: "" };
  collect(proc.stdout as ReadableStream<Uint8Array>, out);
  collect(proc.stderr as ReadableStream<Uint8Array>, err);
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`serve exited ${proc.exitCode}: ${err.text}`);
    const ok = await fetch(url + "/v1/health").then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok && (!args.includes("--demo") || /curl .*\n/.test(out.text))) break;
    if (performance.now() - started > 15_000) throw new Error(`serve did not answer within 15 s: ${err.text}`);
    await Bun.sleep(20);
  }
  return {
    proc,
    url,
    port,
    stdout: () => out.text,
    stderr: () => err.text,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (proc.exitCode !== null) return proc.exitCode;
      proc.kill(signal);
      const killer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      const code = await proc.exited;
      clearTimeout(killer);
      return code;
    },
  };
}

export async function api(url: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url + path, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
