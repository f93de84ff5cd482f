// Webhooks on the compiled binary (docs/events.md, docs/cli.md#webhooks): `webhooks add` prints a
// whsec_ secret once, `serve` delivers the tenant's outbox to a real receiver that verifies with
// the reference library (npm standardwebhooks), a dead endpoint of the same tenant holds up
// nothing, another tenant's receiver gets only its own events; `webhooks test|list|deliveries
// --json`; a server SIGKILLed while an attempt is in flight delivers it after its restart, with
// the same webhook-id; `webhooks remove`; a secret rotation (`webhooks rotate`); usage errors exit 2.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { eventBody, serializeEventBody, type EventType } from "../../src/domain/events/types.ts";
import { writeEvent } from "../../src/events/sql-store.ts";
import { findTenant } from "../../src/ledger/keys.ts";
import { cliAsync, removeTempDirs, tempDir, withLedger } from "../ops/helpers.ts";
import { ledgerArgs } from "../support/engine.ts";
import { until } from "../support/until.ts";
import { startReceiver, type Receiver } from "../support/webhook-receiver.ts";
import { baseEnv, serveBinary, type Served } from "./trust-helpers.ts";

const env = baseEnv(tempDir("cal-webhooks-home-"));
const running: Served[] = [];
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const s of running) await s.stop("SIGKILL");
  for (const r of receivers) r.stop();
  removeTempDirs();
});

/** Writes one event of the tenant to the outbox, as the ledger's changes do (src/ledger/outbox.ts). */
async function emit(dir: string, tenant: string, type: EventType, data: Record<string, unknown>): Promise<string> {
  return withLedger(dir, async (l) => {
    const tenantId = (await findTenant(l.db, tenant))!;
    const body = serializeEventBody(eventBody(type, new Date().toISOString(), data));
    return l.db.write((tx) => writeEvent(tx, { tenantId, type, owner: String(data.owner ?? "o"), body, at: new Date() }));
  });
}

describe("ca-ledger webhooks, delivered by serve", () => {
  test("add, deliver verified, tenancy, a dead endpoint, test/list/deliveries --json, SIGKILL mid-attempt then resume, remove", async () => {
    const dir = join(tempDir(), "ledger");
    const run = (args: string[]) => cliAsync([...args, ...ledgerArgs(dir)], env);
    for (const t of ["acme", "globex"]) expect((await run(["keys", "create", "k", "--tenant", t, "--json"])).code).toBe(0);
    const mine = startReceiver([]);
    const theirs = startReceiver([]);
    receivers.push(mine, theirs);

    const added = await run(["webhooks", "add", "--tenant", "acme", "--url", mine.url, "--json"]);
    expect(added.code).toBe(0);
    const sub = JSON.parse(added.stdout);
    expect(sub).toMatchObject({ tenant: "acme", receiver: new URL(mine.url).origin, events: null });
    expect(sub.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(added.stderr).toContain("created the webhook key"); // SQLite: the key file, made on first use
    mine.secrets.push(sub.secret);
    const dead = JSON.parse((await run(["webhooks", "add", "--tenant", "acme", "--url", "http://127.0.0.1:9/never", "--events", "action.booked", "--json"])).stdout);
    const other = JSON.parse((await run(["webhooks", "add", "--tenant", "globex", "--url", theirs.url, "--json"])).stdout);
    theirs.secrets.push(other.secret);
    expect(other.secret).not.toBe(sub.secret);

    const first = await emit(dir, "acme", "action.booked", { id: "a1", owner: "w1" });
    await emit(dir, "globex", "wallet.synced", { owner: "w2" });
    const server = await serveBinary(ledgerArgs(dir), env);
    running.push(server);
    await until("acme's event delivered", () => mine.received.some((r) => r.answered === 204), 60_000);
    await until("globex's event delivered", () => theirs.received.some((r) => r.answered === 204), 60_000);
    expect(mine.received.map((r) => [r.headers["webhook-id"], r.verdicts])).toEqual([[first, ["ok"]]]);
    expect(JSON.parse(mine.received[0]!.body)).toMatchObject({ type: "action.booked", data: { id: "a1" } });
    expect(theirs.received.map((r) => JSON.parse(r.body).type)).toEqual(["wallet.synced"]); // never acme's

    // The dead endpoint retries on its own; acme's live one keeps getting events meanwhile.
    const second = await emit(dir, "acme", "wallet.gap", { owner: "w1" });
    await until("the next event delivered past the dead endpoint", () => mine.received.some((r) => r.headers["webhook-id"] === second && r.answered === 204), 60_000);
    const deadRows = JSON.parse((await run(["webhooks", "deliveries", dead.id, "--json"])).stdout);
    expect(deadRows).toHaveLength(1); // only action.booked: it asked for that type alone
    expect(deadRows[0]).toMatchObject({ eventId: first, status: "pending" });
    expect(deadRows[0].lastAnswer).toContain("http://127.0.0.1:9");
    expect(deadRows[0].lastAnswer).not.toContain("/never");

    const tested = await run(["webhooks", "test", sub.id, "--json"]);
    expect(tested.code).toBe(0);
    expect(JSON.parse(tested.stdout)).toMatchObject({ eventId: second, again: true, delivery: { status: "delivered" } });
    expect(mine.received.at(-1)!.headers["webhook-id"]).toBe(second);

    const listed = JSON.parse((await run(["webhooks", "list", "--tenant", "acme", "--json"])).stdout);
    expect(listed.map((s: { id: string }) => s.id).sort()).toEqual([sub.id, dead.id].sort());
    expect(JSON.stringify(listed)).not.toContain("whsec_");
    expect(listed.find((s: { id: string }) => s.id === sub.id).deliveries).toEqual({ pending: 0, delivered: 3, failed: 0 });

    // SIGKILL while an attempt is in flight: after the restart the same event is delivered.
    mine.behaviour = "hang";
    const third = await emit(dir, "acme", "action.revised", { id: "a1", owner: "w1" });
    await until("the attempt in flight", () => mine.received.some((r) => r.headers["webhook-id"] === third), 60_000);
    expect(await server.stop("SIGKILL")).not.toBe(0);
    mine.behaviour = "verify";
    const restarted = await serveBinary(ledgerArgs(dir), env);
    running.push(restarted);
    // Within 30 s, under the 60 s lease the killed server left: the restarted one frees it (SQLite: the data dir's lock says no other server delivers).
    await until("delivered after the restart", () => mine.received.some((r) => r.headers["webhook-id"] === third && r.answered === 204), 30_000);
    const thirdRow = JSON.parse((await run(["webhooks", "deliveries", sub.id, "--json"])).stdout).find((d: { eventId: string }) => d.eventId === third);
    expect(thirdRow).toMatchObject({ status: "delivered", attempts: 2 });
    expect(mine.received.filter((r) => r.headers["webhook-id"] === third).map((r) => r.verdicts)).toEqual([["ok"], ["ok"]]);

    // Metrics: attempts by outcome (relayed from the worker thread about once a second) and the queue's age.
    const ops = JSON.parse((await run(["keys", "create", "ops", "--tenant", "acme", "--scopes", "ops:read", "--json"])).stdout).key as string;
    const metric = async (name: string) => {
      const text = await (await fetch(`${restarted.url}/v1/ops/metrics`, { headers: { authorization: `Bearer ${ops}` } })).text();
      return Number(
        text
          .split("\n")
          .find((l) => l.startsWith(`${name} `))
          ?.slice(name.length + 1) ?? NaN,
      );
    };
    await until("the delivery counted", async () => (await metric('caledger_webhook_deliveries_total{outcome="delivered"}')) >= 1);
    expect(await metric("caledger_webhook_queue_age_seconds")).toBeGreaterThan(0); // the dead endpoint's delivery waits

    const removed = await run(["webhooks", "remove", dead.id]);
    expect(removed.code).toBe(0);
    const afterRemove = JSON.parse((await run(["webhooks", "deliveries", dead.id, "--json"])).stdout);
    expect(afterRemove[0]).toMatchObject({ status: "failed", lastAnswer: "not sent: the subscription was removed" });
    expect((await run(["webhooks", "remove", dead.id])).code).toBe(1);
    expect(await metric("caledger_webhook_queue_age_seconds")).toBe(0); // nothing waits for a live subscription now
    await restarted.stop();
  }, 240_000);

  test("rotate: during a rotation a receiver holding either secret verifies; after --finish only the new one", async () => {
    const dir = join(tempDir(), "ledger");
    const run = (args: string[]) => cliAsync([...args, ...ledgerArgs(dir)], env);
    expect((await run(["keys", "create", "k", "--tenant", "acme"])).code).toBe(0);
    const r = startReceiver([]);
    receivers.push(r);
    const sub = JSON.parse((await run(["webhooks", "add", "--tenant", "acme", "--url", r.url, "--json"])).stdout);
    const server = await serveBinary(ledgerArgs(dir), env);
    running.push(server);
    const rotated = JSON.parse((await run(["webhooks", "rotate", sub.id, "--json"])).stdout);
    expect(rotated).toMatchObject({ id: sub.id, secretsInForce: 2 });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(sub.secret);

    const deliveredWith = async (secrets: string[]) => {
      r.secrets = secrets;
      const id = await emit(dir, "acme", "wallet.synced", { owner: "w1" });
      await until(`${id} answered`, () => r.received.some((x) => x.headers["webhook-id"] === id && x.answered !== null), 60_000);
      return r.received.find((x) => x.headers["webhook-id"] === id)!;
    };
    const withNew = await deliveredWith([rotated.secret]);
    expect(withNew.verdicts).toEqual(["ok"]);
    expect(withNew.headers["webhook-signature"]!.split(" ")).toHaveLength(2); // signed with both
    expect((await deliveredWith([sub.secret])).verdicts).toEqual(["ok"]);

    expect(JSON.parse((await run(["webhooks", "rotate", sub.id, "--finish", "--json"])).stdout)).toEqual({ id: sub.id, dropped: 1 });
    const after = await deliveredWith([sub.secret, rotated.secret]);
    expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(after.verdicts[0]).not.toBe("ok"); // the old secret no longer verifies
    expect(after.verdicts[1]).toBe("ok");
    expect((await run(["webhooks", "rotate", "whs_none"])).code).toBe(1);
    await server.stop();
  }, 120_000);

  test("usage errors exit 2 and open nothing; an unknown tenant or subscription exits 1", async () => {
    const dir = join(tempDir(), "ledger");
    const run = (args: string[]) => cliAsync([...args, ...ledgerArgs(dir)], env);
    expect((await run(["keys", "create", "k", "--tenant", "acme"])).code).toBe(0);
    for (const args of [
      ["webhooks", "add", "--tenant", "acme", "--url", "ftp://example.com/x"],
      ["webhooks", "add", "--tenant", "acme", "--url", "https://user:pw@example.com/x"],
      ["webhooks", "add", "--tenant", "acme", "--url", "https://example.com/x", "--events", "action.booked,nonsense"],
      ["webhooks", "list", "--bogus"],
    ]) {
      const r = await run(args);
      expect({ args, code: r.code, leak: r.stderr.includes("pw@") }).toEqual({ args, code: 2, leak: false });
    }
    const nobody = await run(["webhooks", "add", "--tenant", "nobody", "--url", "https://example.com/x"]);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain("no tenant");
    expect((await run(["webhooks", "deliveries", "whs_none"])).code).toBe(1);
    expect((await run(["webhooks", "test", "whs_none"])).code).toBe(1);
    expect((await run(["webhooks", "list", "--json"])).stdout).toBe("[]\n");
  }, 120_000);
});

describe("ca-ledger calendar-url", () => {
  test("prints a URL a running server answers with iCalendar, without a key; --revoke ends it; --json; an unknown tenant exits 1", async () => {
    const dir = join(tempDir(), "ledger");
    const run = (args: string[]) => cliAsync([...args, ...ledgerArgs(dir)], env);
    expect((await run(["keys", "create", "k", "--tenant", "acme"])).code).toBe(0);
    const server = await serveBinary(ledgerArgs(dir), env);
    running.push(server);
    const made = await run(["calendar-url", "--tenant", "acme", "--base-url", server.url + "/", "--json"]);
    expect(made.code).toBe(0);
    const { url } = JSON.parse(made.stdout);
    expect(url).toMatch(new RegExp(`^${server.url}/v2/calendar/calt_[A-Za-z0-9_-]{43}\\.ics$`));
    const feed = await fetch(url);
    expect(feed.status).toBe(200);
    expect(feed.headers.get("content-type")).toStartWith("text/calendar");
    expect(await feed.text()).toStartWith("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n");
    const plain = await run(["calendar-url", "--tenant", "acme"]);
    expect(plain.stdout).toMatch(/^http:\/\/127\.0\.0\.1:4600\/v2\/calendar\/calt_\S+\.ics\n/); // the settings' HOST:PORT by default

    const revoked = await run(["calendar-url", "--tenant", "acme", "--revoke", "--json"]);
    expect(JSON.parse(revoked.stdout)).toEqual({ tenant: "acme", revoked: 2 });
    expect((await fetch(url)).status).toBe(404);
    expect((await run(["calendar-url", "--tenant", "nobody"])).code).toBe(1);
    expect((await run(["calendar-url", "--tenant", "acme", "--base-url", "ftp://x"])).code).toBe(2);
    expect((await run(["calendar-url"])).code).toBe(2);
    await server.stop();
  }, 120_000);
});
