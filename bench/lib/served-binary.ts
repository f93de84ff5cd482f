// The binary served on loopback for the read benchmarks (bench/http.ts, bench/http-alternate.ts):
// its environment, a free port, and the wait for its first 200 on /v1/health.

/** The server's environment: limits out of the way, and no network (the worker's pollers fail at once against a closed port instead of waiting on DNS). */
export const benchServerEnv = (extra: Record<string, string> = {}): Record<string, string | undefined> => ({
  ...process.env,
  NO_COLOR: "1",
  LOG_LEVEL: "warn",
  RATE_LIMIT_PER_MINUTE: "1000000000",
  AUTH_FAILURES_PER_MINUTE: "1000000000",
  SOLANA_RPC_URL: "http://127.0.0.1:9",
  XSTOCKS_API_URL: "http://127.0.0.1:9",
  ...extra,
});

/** A loopback port nothing listens on now. */
export function freePort(): number {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const p = s.port;
  s.stop(true);
  return p;
}

/** Waits for the server's first 200 on /v1/health; returns how long it took, in ms. */
export async function waitHealthy(url: string, deadlineMs = 15_000): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < deadlineMs) {
    try {
      const r = await fetch(url + "/v1/health", { signal: AbortSignal.timeout(500) });
      if (r.status === 200) return performance.now() - t0;
    } catch {
      /* not up yet */
    }
    await Bun.sleep(2);
  }
  throw new Error(`no 200 from ${url}/v1/health within ${deadlineMs} ms`);
}
