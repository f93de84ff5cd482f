// The receiver docs/events.md shows, run exactly as written in its own process (Bun, with the
// reference library), against the delivery worker: it accepts our signed deliveries and refuses
// a request whose body was changed. So the page's example stays true, and stays short.
import { afterAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateSecret, unixSeconds, webhookHeaders } from "../../src/domain/events/signature.ts";
import { eventBody, serializeEventBody } from "../../src/domain/events/types.ts";
import { MemoryDeliveryStore } from "../../src/events/memory-store.ts";
import { createSecretBox } from "../../src/events/secret-box.ts";
import { createWebhookTransport } from "../../src/events/transport.ts";
import { startDeliveryWorker } from "../../src/events/worker.ts";
import { until } from "../support/until.ts";

const root = join(import.meta.dir, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "ca-ledger-receiver-"));
let child: ReturnType<typeof Bun.spawn> | null = null;
afterAll(() => {
  child?.kill();
  rmSync(dir, { recursive: true, force: true });
});

/** The TypeScript block under the page's "A receiver in 15 lines" heading. */
function receiverFromDocs(): string {
  const page = readFileSync(join(root, "docs", "events.md"), "utf8");
  const section = page.slice(page.indexOf("## A receiver in 15 lines"));
  return /```ts\n([\s\S]*?)```/.exec(section)![1]!;
}

test("the documented receiver verifies our deliveries and refuses a changed body", async () => {
  const code = receiverFromDocs();
  const lines = code.split("\n").filter((l) => l.trim() !== "" && !l.trim().startsWith("//"));
  expect(lines.length).toBeLessThanOrEqual(15);
  expect(code).toContain('from "standardwebhooks"');

  writeFileSync(join(dir, "receiver.ts"), code);
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  const secret = generateSecret(randomBytes);
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port;
  probe.stop(true);
  let stdout = "";
  child = Bun.spawn([process.execPath, join(dir, "receiver.ts")], { cwd: dir, env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) }, stdout: "pipe", stderr: "inherit" });
  (async () => {
    for await (const chunk of child!.stdout as ReadableStream<Uint8Array>) stdout += new TextDecoder().decode(chunk);
  })();
  const url = `http://127.0.0.1:${port}/webhooks`;
  await until("the receiver listens", () =>
    fetch(url, { method: "POST", body: "" }).then(
      () => true,
      () => false,
    ),
  );

  const box = createSecretBox(randomBytes(32));
  const store = new MemoryDeliveryStore();
  store.addSubscription({ id: "sub_docs", url, sealedSecrets: [box.seal(secret, "sub_docs")], events: null });
  const body = serializeEventBody(eventBody("wallet.gap", new Date().toISOString(), { owner: "7xKX", gaps: [{ address: "A1", reason: "RPC pruned" }] }));
  store.enqueue({ id: "evt_9", type: "wallet.gap", body }, new Date());
  const worker = startDeliveryWorker({ store, send: createWebhookTransport(), secrets: box, pollMs: 50 });
  try {
    await until("delivered", () => store.deliveries("sub_docs")[0]!.status !== "pending" || store.deliveries("sub_docs")[0]!.attempts > 1);
  } finally {
    await worker.stop();
  }
  expect(store.deliveries("sub_docs")[0]).toMatchObject({ status: "delivered", attempts: 1, lastStatus: 204 });
  await until("the receiver printed the event", () => stdout.includes("evt_9"));
  expect(stdout).toContain('evt_9 wallet.gap {"owner":"7xKX","gaps":[{"address":"A1","reason":"RPC pruned"}]}');

  // The same headers with another body: the signature no longer matches.
  const headers = webhookHeaders({ id: "evt_10", timestamp: unixSeconds(new Date()), body, secrets: [secret] });
  const changed = await fetch(url, { method: "POST", headers: { ...headers }, body: body.replace("RPC pruned", "all fine") });
  expect(changed.status).toBe(401);
  const genuine = await fetch(url, { method: "POST", headers: { ...headers }, body });
  expect(genuine.status).toBe(204);
});
