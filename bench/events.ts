// bench/events: signed webhooks through the path users run (docs/events.md). The compiled binary
// serves a data dir and syncs from loopback JSON-RPC and xStocks servers (lib/scale-chain.ts);
// subscriptions are added with `ca-ledger webhooks add`; receivers on loopback verify every
// delivery with the Standard Webhooks reference library (npm standardwebhooks). Three figures:
//   1. latency: a multiplier change scheduled on chain (an hour ahead) for a mint the wallets
//      hold, to its first action.scheduled delivered at a local receiver, median and p99 over
//      --samples changes; measured from the chain write (the mint poll runs every second, so up to
//      1 s of it is the poll's wait) and from the event's own timestamp (when the ledger wrote it);
//   2. sync throughput: --wallets wallets registered and synced with no subscription, and on a
//      fresh ledger with one dead endpoint (connection refused, retried on its schedule) and one
//      live receiver subscribed to the tenant: wallets per second, the median of --rounds runs of
//      each (alternated), and the ratio (target ≥ 0.9);
//   3. kills: two tenants, each with its own receiver; events written while the server delivers
//      and the server SIGKILLed mid-delivery --kills times (restarted each time): at the end every
//      event reached its tenant's receiver, none reached the other's (duplicates, allowed by
//      at-least-once delivery, are counted).
//
//   npm run build && ./node_modules/.bin/bun bench/events.ts [--wallets 1000] [--rounds 3] [--samples 20] [--kills 40] [--json out.json]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { eventBody, serializeEventBody } from "../src/domain/events/types.ts";
import { openLedger } from "../src/ledger/db.ts";
import { findTenant } from "../src/ledger/keys.ts";
import { writeEvent } from "../src/ledger/outbox.ts";
import { decodeMintBytes } from "../src/sources/solana/decode.ts";
import { encodeMint, randomSignature, seededRandom, updateMultiplierTx, XSTOCKS_AUTHORITY } from "../test/support/chain.ts";
import { addTransaction } from "../test/support/rpc-server.ts";
import { q } from "../test/support/sql.ts";
import { binary, startScaleRun } from "./lib/scale-run.ts";
import { quantile } from "./lib/stats.ts";

const args = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : dflt;
};
const WALLETS = Number(opt("wallets", "1000"));
const SAMPLES = Number(opt("samples", "20"));
const KILLS = Number(opt("kills", "40"));
const ROUNDS = Number(opt("rounds", "3"));
const jsonOut = args.includes("--json") ? opt("json", "") : null;

interface Arrival {
  id: string;
  type: string;
  body: string;
  at: number;
  verified: boolean;
}

/** A receiver as a subscriber writes one: verifies with the reference library, answers 204 (after `delayMs`). */
function receiver(delayMs = 0) {
  const got: Arrival[] = [];
  const r = { url: "", secret: "", got, stop: () => server.stop(true) };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = await req.text();
      const headers = Object.fromEntries(req.headers);
      let verified = false;
      try {
        new Webhook(r.secret).verify(body, headers);
        verified = true;
      } catch {
        /* counted below */
      }
      got.push({ id: headers["webhook-id"] ?? "", type: (JSON.parse(body) as { type: string }).type, body, at: Date.now(), verified });
      if (delayMs) await Bun.sleep(delayMs);
      return new Response(null, { status: verified ? 204 : 401 });
    },
  });
  r.url = `http://127.0.0.1:${server.port}/hook`;
  return r;
}

function cli(dataDir: string, argv: string[], env: Record<string, string> = {}): string {
  const run = Bun.spawnSync([binary, ...argv, "--data-dir", dataDir], { env: { PATH: process.env.PATH ?? "", HOME: dataDir, NO_COLOR: "1", ...env } });
  if (run.exitCode !== 0) throw new Error(`${argv.join(" ")}: ${run.stderr.toString()}`);
  return run.stdout.toString();
}
const subscribe = (dataDir: string, tenant: string, url: string) => JSON.parse(cli(dataDir, ["webhooks", "add", "--tenant", tenant, "--url", url, "--json"])) as { id: string; secret: string };

const results: Record<string, unknown> = { wallets: WALLETS, samples: SAMPLES, kills: KILLS };

// ---- 2. sync throughput, without and with subscriptions -----------------------------------
let liveId = "";
async function throughput(withSubscriptions: boolean) {
  const run = await startScaleRun({ MINT_POLL_SECONDS: "1" });
  const live = receiver();
  if (withSubscriptions) {
    subscribe(run.dataDir, "bench", "http://127.0.0.1:9/dead"); // connection refused, every attempt
    const sub = subscribe(run.dataDir, "bench", live.url);
    live.secret = sub.secret;
    liveId = sub.id;
  }
  const seconds = await run.grow(0, WALLETS, WALLETS);
  return { run, live, seconds, perSecond: WALLETS / seconds };
}

// Runs in the order bare, subscribed, subscribed, bare, … (--rounds pairs), so a drift in the
// machine's load (other work on the shared cores) weighs on both alike; the medians are compared.
const perSecond: Record<"bare" | "subscribed", number[]> = { bare: [], subscribed: [] };
let subscribed!: Awaited<ReturnType<typeof throughput>>;
for (let round = 0; round < ROUNDS; round++) {
  for (const withSubs of round % 2 === 0 ? [false, true] : [true, false]) {
    const r = await throughput(withSubs);
    perSecond[withSubs ? "subscribed" : "bare"].push(r.perSecond);
    const keep = withSubs && round === ROUNDS - 1;
    if (keep) subscribed = r;
    else {
      await r.run.stop();
      r.live.stop();
      rmSync(r.run.dataDir, { recursive: true, force: true });
    }
  }
}
const bareMedian = quantile(perSecond.bare, 0.5),
  subscribedMedian = quantile(perSecond.subscribed, 0.5);
results.throughput = { runs: perSecond, bareWalletsPerSecond: bareMedian, subscribedWalletsPerSecond: subscribedMedian, ratio: subscribedMedian / bareMedian, target: 0.9 };
console.log(
  `sync throughput (median of ${ROUNDS} runs each): ${bareMedian.toFixed(1)} wallets/s without subscriptions, ${subscribedMedian.toFixed(1)} with a dead endpoint and a live receiver (ratio ${(subscribedMedian / bareMedian).toFixed(3)}, target >= 0.9); runs: ${JSON.stringify(perSecond)}`,
);

// ---- 1. latency: the mint poll seeing a scheduled change, to action.scheduled delivered -----
{
  const { run, live } = subscribed;
  // The registrations' wallet.synced deliveries first (one subscription's deliveries go in order).
  await run.until("the registrations delivered", () => live.got.filter((a) => a.type === "wallet.synced").length >= WALLETS, 600_000);
  const chain = run.scale.chain;
  const candidates = run.scale.mints.filter((m) => m.symbol !== "HONx"); // held by about WALLETS/12 wallets each
  const fromChain: number[] = [];
  const fromEvent: number[] = [];
  let slot = chain.slot;
  for (let i = 0; i < SAMPLES; i++) {
    const { mint } = candidates[i % candidates.length]!;
    const effective = Math.floor(Date.now() / 1000) + 3600 + i;
    const seen = live.got.length;
    slot += 1000;
    chain.slot = slot + 10;
    const current = chain.accounts.get(mint)!;
    // The value in force stays; the new one is scheduled an hour ahead.
    const state = decodeMintBytes(current.data).scaledUiAmount!;
    const inForce = state.newMultiplierEffectiveTimestamp <= Date.now() / 1000 ? state.newMultiplier : state.multiplier;
    const signature = randomSignature(seededRandom(9_000 + i));
    addTransaction(
      chain,
      signature,
      updateMultiplierTx({
        signature,
        slot,
        blockTime: Math.floor(Date.now() / 1000),
        authority: XSTOCKS_AUTHORITY,
        updates: [
          { mint, multiplier: inForce, effectiveTimestamp: state.newMultiplierEffectiveTimestamp },
          { mint, multiplier: inForce * (1 + (i + 1) / 1000), effectiveTimestamp: effective },
        ],
      }),
      [XSTOCKS_AUTHORITY],
    );
    const written = Date.now();
    chain.accounts.set(mint, {
      ...current,
      data: encodeMint({ decimals: 8, authority: XSTOCKS_AUTHORITY, multiplier: inForce, newMultiplier: inForce * (1 + (i + 1) / 1000), newMultiplierEffectiveTimestamp: effective }),
    });
    const isMine = (a: Arrival) => a.type === "action.scheduled" && (JSON.parse(a.body) as { data: { mint: string } }).data.mint === mint;
    await run.until(`action.scheduled for sample ${i}`, () => live.got.slice(seen).some(isMine), 120_000);
    const first = live.got.slice(seen).find(isMine)!;
    fromChain.push(first.at - written);
    fromEvent.push(first.at - Date.parse((JSON.parse(first.body) as { timestamp: string }).timestamp));
    // Let this change's other holders' deliveries drain before the next sample.
    await run.until(
      "the queue drained",
      async () => (await run.one(q<{ n: number }>`SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND subscription_id = ${liveId}`)).n === 0,
      600_000,
    );
  }
  results.latencyMs = {
    fromChainWrite: { median: quantile(fromChain, 0.5), p99: quantile(fromChain, 0.99) },
    fromEventWritten: { median: quantile(fromEvent, 0.5), p99: quantile(fromEvent, 0.99) },
    unverified: live.got.filter((a) => !a.verified).length,
  };
  console.log(`latency, chain write to the first action.scheduled delivered (mint poll every 1 s): median ${quantile(fromChain, 0.5)} ms, p99 ${quantile(fromChain, 0.99)} ms`);
  console.log(
    `latency, event written to delivered: median ${quantile(fromEvent, 0.5)} ms, p99 ${quantile(fromEvent, 0.99)} ms; deliveries failing verification: ${live.got.filter((a) => !a.verified).length}`,
  );
  await run.stop();
  live.stop();
  rmSync(run.dataDir, { recursive: true, force: true });
}

// ---- 3. SIGKILLs mid-delivery --------------------------------------------------------------
{
  const dataDir = mkdtempSync(join(tmpdir(), "cal-bench-events-"));
  const env = { PATH: process.env.PATH ?? "", HOME: dataDir, NO_COLOR: "1", LOG_LEVEL: "error", SOLANA_RPC_URL: "http://127.0.0.1:9", XSTOCKS_API_URL: "http://127.0.0.1:9/api/v2" };
  for (const t of ["acme", "globex"]) cli(dataDir, ["keys", "create", "k", "--tenant", t, "--json"]);
  const receivers = { acme: receiver(20), globex: receiver(20) };
  for (const [t, r] of Object.entries(receivers)) r.secret = subscribe(dataDir, t, r.url).secret;
  const written: Record<string, Set<string>> = { acme: new Set(), globex: new Set() };
  const emit = async (perTenant: number) => {
    const ledger = await openLedger({ dataDir, databaseUrl: null }, { migrate: false });
    try {
      for (const t of ["acme", "globex"] as const) {
        const tenantId = (await findTenant(ledger.db, t))!;
        for (let n = 0; n < perTenant; n++) {
          const body = serializeEventBody(eventBody("wallet.synced", new Date().toISOString(), { owner: `${t}-${written[t]!.size}` }));
          written[t]!.add(await ledger.db.write((tx) => writeEvent(tx, { tenantId, type: "wallet.synced", owner: t, body, at: new Date() })));
        }
      }
    } finally {
      await ledger.close();
    }
  };
  const serve = async () => {
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    const proc = Bun.spawn([binary, "serve", "--data-dir", dataDir, "--port", String(port)], { env, stdout: "ignore", stderr: "inherit" });
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/v1/health`)).status === 200) break;
      } catch {}
      if (i > 3000) throw new Error("serve did not start");
      await Bun.sleep(5);
    }
    return proc;
  };
  const arrived = () => receivers.acme.got.length + receivers.globex.got.length;
  let killedInFlight = 0;
  for (let k = 0; k < KILLS; k++) {
    await emit(5);
    const proc = await serve();
    const before = arrived();
    // Mid-delivery: a request has reached a receiver, which holds its answer for 20 ms.
    const end = Date.now() + 30_000;
    while (arrived() === before && Date.now() < end) await Bun.sleep(1);
    if (arrived() > before) killedInFlight++;
    proc.kill("SIGKILL");
    await proc.exited;
  }
  const last = await serve();
  const delivered = (t: "acme" | "globex") => new Set(receivers[t].got.filter((a) => a.verified).map((a) => a.id));
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline && !(["acme", "globex"] as const).every((t) => [...written[t]!].every((id) => delivered(t).has(id)))) await Bun.sleep(50);
  last.kill("SIGTERM");
  await last.exited;
  const lost = (["acme", "globex"] as const).map((t) => [...written[t]!].filter((id) => !delivered(t).has(id)).length).reduce((a, b) => a + b, 0);
  const crossed = receivers.acme.got.filter((a) => written.globex!.has(a.id)).length + receivers.globex.got.filter((a) => written.acme!.has(a.id)).length;
  const total = written.acme!.size + written.globex!.size;
  const duplicates = arrived() - new Set([...receivers.acme.got, ...receivers.globex.got].map((a) => a.id)).size;
  results.kills = {
    kills: KILLS,
    killedWithARequestInFlight: killedInFlight,
    events: total,
    lost,
    deliveredToAnotherTenant: crossed,
    duplicates,
    unverified: [...receivers.acme.got, ...receivers.globex.got].filter((a) => !a.verified).length,
  };
  console.log(
    `kills: ${KILLS} SIGKILLs (${killedInFlight} with a request in flight), ${total} events: ${lost} lost, ${crossed} delivered to another tenant, ${duplicates} delivered again (at least once)`,
  );
  receivers.acme.stop();
  receivers.globex.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 2) + "\n");
process.exit(0);
