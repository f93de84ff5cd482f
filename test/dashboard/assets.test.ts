// GET / and the dashboard's files, over real HTTP: the page, its script (and the chunk it loads
// later), its style and icon, each from inside the server, with a strict policy and no inline
// script or style anywhere.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { contentSecurityPolicy } from "../../src/http/dashboard/headers.ts";
import { startTestServer, type TestServer } from "../harness/index.ts";
import { assetPaths } from "./pages.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.close();
});

test("GET / is the dashboard page with a strict policy, no inline script or style", async () => {
  const res = await fetch(srv.url + "/");
  const html = await res.text();
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  const csp = res.headers.get("content-security-policy")!;
  expect(csp).toBe(contentSecurityPolicy);
  for (const part of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"]) expect(csp).toContain(part);
  expect(csp).not.toContain("unsafe");
  expect(res.headers.get("x-frame-options")).toBe("DENY");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  expect(html).toContain('<div id="app">');
  // Every script has a src; no <style> element, no style attribute, no inline handler.
  expect([...html.matchAll(/<script\b[^>]*>/g)].every((m) => /\bsrc="\/ui\//.test(m[0]))).toBe(true);
  expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
});

test("every file the page loads is served from inside, with its type, cached by content", async () => {
  const paths = await assetPaths(srv.url);
  const kinds = paths.map((p) => p.split(".").pop());
  expect(kinds.filter((k) => k === "js").length).toBeGreaterThanOrEqual(2); // the entry and the chart's chunk
  expect(kinds).toContain("css");
  expect(kinds).toContain("svg");
  const types: Record<string, string> = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8", svg: "image/svg+xml" };
  for (const path of paths) {
    const res = await fetch(srv.url + path);
    const body = await res.text();
    expect({ path, status: res.status, type: res.headers.get("content-type") }).toEqual({ path, status: 200, type: types[path.split(".").pop()!]! });
    expect(body.length).toBeGreaterThan(100);
    if (!path.endsWith(".svg")) expect(res.headers.get("cache-control")).toContain("immutable");
    const again = await fetch(srv.url + path, { headers: { "if-none-match": res.headers.get("etag")! } });
    expect(again.status).toBe(304);
  }
});

test("compressed when the browser accepts it, the same bytes once decoded", async () => {
  const paths = await assetPaths(srv.url);
  const script = paths.find((p) => p.endsWith(".js"))!;
  const plain = await (await fetch(srv.url + script, { headers: { "accept-encoding": "identity" } })).text();
  const zipped = await fetch(srv.url + script, { headers: { "accept-encoding": "gzip" }, decompress: false } as RequestInit);
  expect(zipped.headers.get("content-encoding")).toBe("gzip");
  const raw = new Uint8Array(await zipped.arrayBuffer());
  expect(raw.length).toBeLessThan(plain.length / 2);
  expect(new TextDecoder().decode(Bun.gunzipSync(raw))).toBe(plain);
});

test("the page is read-only: other methods are 405, HEAD has no body", async () => {
  const post = await fetch(srv.url + "/", { method: "POST" });
  expect(post.status).toBe(405);
  expect(await post.json()).toEqual({ error: "Method POST is not allowed here; use GET.", code: "method_not_allowed" });
  const head = await fetch(srv.url + "/", { method: "HEAD" });
  expect(head.status).toBe(200);
  expect(await head.text()).toBe("");
});
