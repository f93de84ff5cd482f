// GET /v2/events through the real server (docs/events.md#the-live-stream), read by
// eventsource-parser as a browser's EventSource would: the tenant's events as they are written,
// the same bodies the outbox holds; another tenant's stream sees none of them; Last-Event-ID (or
// ?lastEventId=) resumes after the event it names.
import { afterAll, afterEach, expect, test } from "bun:test";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import { eventually, removeEventDirs, startEventServer, stopEventServers } from "../support/event-server.ts";
import { until } from "../support/until.ts";
import { buildWalletScenario } from "../support/wallet-chain.ts";

afterEach(stopEventServers);
afterAll(removeEventDirs);

interface Stream {
  status: number;
  contentType: string | null;
  events: EventSourceMessage[];
  comments: string[];
  close(): void;
}

/** Opens the stream with a key and keeps reading it into `events` until closed. */
async function open(base: string, key: string, opts: { lastEventId?: string; query?: string } = {}): Promise<Stream> {
  const abort = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: "text/event-stream" };
  if (opts.lastEventId) headers["last-event-id"] = opts.lastEventId;
  const res = await fetch(`${base}/v2/events${opts.query ?? ""}`, { headers, signal: abort.signal });
  const s: Stream = { status: res.status, contentType: res.headers.get("content-type"), events: [], comments: [], close: () => abort.abort() };
  const parser = createParser({ onEvent: (e) => s.events.push(e), onComment: (c) => s.comments.push(c) });
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body!) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // closed by the test
    }
  })();
  return s;
}

test("the tenant's events as they happen, with the outbox's ids and bodies; none of another tenant's; Last-Event-ID resumes", async () => {
  const s = buildWalletScenario({ transfers: 6, seed: 71 });
  s.addUpdate(1.0031, 1_789_000_000);
  const { server, key, events, register } = await startEventServer(s, { RESYNC_SECONDS: "1" });
  const acme = await key("acme");
  const other = await key("other");
  const mine = await open(server.url, acme);
  const theirs = await open(server.url, other);
  expect(mine.status).toBe(200);
  expect(mine.contentType).toStartWith("text/event-stream");
  await until("the stream open", () => mine.comments.length > 0 && theirs.comments.length > 0);

  await register(acme, s.owner);
  const written = await eventually("the first sync's event", events, (e) => e.length >= 1);
  await until("the event streamed", () => mine.events.length >= 1);
  expect(mine.events[0]).toMatchObject({ id: `evt_${written[0]!.seq}`, event: "wallet.synced", data: written[0]!.body });

  // Another change: booked, then synced; streamed in order.
  s.addUpdate(1.0042, 1_789_000_000);
  const all = await eventually("the change told", events, (e) => e.length >= 3);
  await until("every event streamed", () => mine.events.length >= all.length);
  expect(mine.events.map((e) => [e.id, e.event, e.data])).toEqual(all.map((e) => [`evt_${e.seq}`, e.type, e.body]));
  expect(theirs.events).toEqual([]); // another tenant's stream: keep-alives only
  mine.close();
  theirs.close();

  // Reconnecting after the first event gets the rest at once, by header or by query.
  const resumed = await open(server.url, acme, { lastEventId: `evt_${all[0]!.seq}` });
  const byQuery = await open(server.url, acme, { query: `?lastEventId=evt_${all[0]!.seq}` });
  await until("the rest replayed", () => resumed.events.length >= all.length - 1 && byQuery.events.length >= all.length - 1);
  expect(resumed.events.map((e) => e.id)).toEqual(all.slice(1).map((e) => `evt_${e.seq}`));
  expect(byQuery.events.map((e) => e.id)).toEqual(all.slice(1).map((e) => `evt_${e.seq}`));
  // The other tenant resuming from the same id still gets nothing of acme's.
  const otherResumed = await open(server.url, other, { lastEventId: "evt_0" });
  await until("a poll after it opened (a keep-alive follows one)", () => otherResumed.comments.length >= 2);
  resumed.close();
  byQuery.close();
  expect(otherResumed.events).toEqual([]);
  otherResumed.close();
}, 180_000);

test("HEAD /v2/events answers the stream's headers and ends (a stream to a HEAD never ended)", async () => {
  const s = buildWalletScenario({ transfers: 2, seed: 72 });
  const { server, key } = await startEventServer(s, {});
  const acme = await key("acme");
  // Generous, and only to tell a hang from an answer: a HEAD answered at all is the point. With
  // the trailing slash (the fuzz run found it), the stream to a HEAD never ended.
  for (const path of ["/v2/events", "/v2/events/"]) {
    const res = await fetch(`${server.url}${path}`, { method: "HEAD", headers: { authorization: `Bearer ${acme}` }, signal: AbortSignal.timeout(20_000) });
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    expect(await res.text()).toBe("");
  }
}, 60_000);
