export {};
// A Bun Worker for bench/scale.ts: asks a running server for /v1/health and /v1/portfolio in a
// loop, on its own thread, so the latencies it records are the server's, not the bench's own
// event loop (which also runs the loopback RPC and issuer servers). Messages: {start, url, key,
// owner} to begin, {report} to get and reset the samples since the last report, {stop}.
declare const self: Worker;

let running = false;
let samples: { health: number[]; portfolio: number[]; errors: number } = { health: [], portfolio: [], errors: 0 };

async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const t = performance.now();
  const r = await fetch(url, { headers });
  await r.arrayBuffer();
  if (r.status !== 200) samples.errors++;
  return performance.now() - t;
}

self.onmessage = async (e: MessageEvent) => {
  const m = e.data;
  if (m.type === "start") {
    running = true;
    const headers = { authorization: `Bearer ${m.key}` };
    while (running) {
      try {
        samples.health.push(await timed(`${m.url}/v1/health`, {}));
        samples.portfolio.push(await timed(`${m.url}/v1/portfolio?owner=${m.owner}`, headers));
      } catch {
        samples.errors++;
      }
      await Bun.sleep(5);
    }
  } else if (m.type === "report") {
    self.postMessage(samples);
    samples = { health: [], portfolio: [], errors: 0 };
  } else if (m.type === "stop") {
    running = false;
  }
};
