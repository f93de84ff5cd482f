// The HTTP transport against real servers on loopback: what counts as delivered, redirects, the
// timeout (headers and answer), the answer cap, and errors that name the host and the cause but
// never the URL's path or query.
import { afterAll, describe, expect, test } from "bun:test";
import { createWebhookTransport } from "../../src/events/transport.ts";

const servers: { stop(force?: boolean): void }[] = [];
afterAll(() => {
  for (const s of servers) s.stop(true);
});

function serve(fetch: (req: Request) => Response | Promise<Response>) {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch });
  servers.push(s);
  return `http://127.0.0.1:${s.port}`;
}

const headers = { "webhook-id": "evt_1", "webhook-timestamp": "1700000000", "webhook-signature": "v1,abc=" };
const body = '{"type":"ping","timestamp":"2026-01-15T14:30:00.000Z","data":{}}';
const secretPath = "/hook/tok_SECRETPATH?key=SECRETQUERY";
const noSecrets = (s: string) => !s.includes("SECRETPATH") && !s.includes("SECRETQUERY") && !s.includes("/hook");

describe("the HTTP transport", () => {
  test("POSTs the body as is with the webhook headers; any 2xx is delivered", async () => {
    const seen: { method: string; headers: Record<string, string>; body: string }[] = [];
    const base = serve(async (req) => {
      seen.push({ method: req.method, headers: Object.fromEntries(req.headers), body: await req.text() });
      return new Response("thanks", { status: seen.length === 1 ? 200 : 299 });
    });
    const send = createWebhookTransport();
    expect(await send({ url: base + "/in", headers, body })).toEqual({ ok: true, status: 200, answer: "HTTP 200: thanks" });
    expect((await send({ url: base + "/in", headers, body })).ok).toBe(true);
    expect(seen[0]!.method).toBe("POST");
    expect(seen[0]!.body).toBe(body);
    expect(seen[0]!.headers).toMatchObject({ ...headers, "content-type": "application/json" });
    expect(seen[0]!.headers["user-agent"]).toStartWith("ca-ledger/");
  });

  test("a non-2xx answer fails with its status, answer and Retry-After", async () => {
    const base = serve(() => new Response("busy\u0001 now", { status: 503, headers: { "retry-after": "120" } }));
    expect(await createWebhookTransport()({ url: base, headers, body })).toEqual({ ok: false, status: 503, answer: "HTTP 503: busy  now", retryAfterMs: 120_000 });
  });

  test("a redirect is not followed", async () => {
    let followed = 0;
    const target = serve(() => {
      followed++;
      return new Response("ok");
    });
    const base = serve(() => Response.redirect(target + "/elsewhere?token=SECRETQUERY", 307));
    const r = await createWebhookTransport()({ url: base + secretPath, headers, body });
    expect(r).toMatchObject({ ok: false, status: 307 });
    expect(r.answer).toContain("redirect, not followed");
    expect(noSecrets(r.answer)).toBe(true);
    expect(followed).toBe(0);
  });

  test("no answer before the timeout: failed, named by host", async () => {
    const base = serve(() => new Promise<Response>(() => {}));
    const r = await createWebhookTransport({ timeoutMs: 300 })({ url: base + secretPath, headers, body });
    expect(r).toEqual({ ok: false, status: null, answer: `no answer from ${base} within 0.3 s`, retryAfterMs: null });
  });

  test("headers sent, then the answer stalls: the same timeout ends the attempt", async () => {
    const base = serve(() => new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("partial")) }), { status: 200 }));
    const r = await createWebhookTransport({ timeoutMs: 300 })({ url: base + secretPath, headers, body });
    expect(r).toMatchObject({ ok: false, status: null, answer: `no answer from ${base} within 0.3 s` });
  });

  test("an answer over 64 KiB is not read past the cap", async () => {
    const base = serve(() => new Response("x".repeat(1024 * 1024), { status: 500 }));
    const r = await createWebhookTransport()({ url: base, headers, body });
    expect(r).toMatchObject({ ok: false, status: 500, answer: "HTTP 500; answer over 64 KiB, not kept" });
  });

  test("a long answer is kept to 500 characters", async () => {
    const base = serve(() => new Response("y".repeat(2000), { status: 400 }));
    const r = await createWebhookTransport()({ url: base, headers, body });
    expect(r.answer.length).toBeLessThanOrEqual(501);
    expect(r.answer).toStartWith("HTTP 400: yyy");
  });

  test("nothing listening: connection refused, named by host and port only", async () => {
    const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const port = s.port;
    s.stop(true);
    const r = await createWebhookTransport()({ url: `http://127.0.0.1:${port}${secretPath}`, headers, body });
    expect(r).toEqual({ ok: false, status: null, answer: `could not deliver to http://127.0.0.1:${port}: connection refused (ECONNREFUSED)`, retryAfterMs: null });
  });

  test("an unknown host: named, the path and query not", async () => {
    const r = await createWebhookTransport()({ url: `http://no-such-host.invalid${secretPath}`, headers, body });
    expect(r.ok).toBe(false);
    expect(r.answer).toStartWith("could not deliver to http://no-such-host.invalid: ");
    expect(noSecrets(r.answer)).toBe(true);
  });

  test("stopping abandons the attempt (the worker records nothing for it)", async () => {
    const base = serve(() => new Promise<Response>(() => {}));
    const stop = new AbortController();
    const pending = createWebhookTransport()({ url: base, headers, body }, stop.signal);
    stop.abort(new Error("stopping"));
    expect(await pending).toMatchObject({ ok: false, status: null, abandoned: true });
  });
});
