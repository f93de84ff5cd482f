// Event bodies, ids, filters and subscription URLs (docs/events.md#event-types).
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { checkWebhookUrl, parseEventFilter, subscribesTo } from "../../src/domain/events/subscription.ts";
import { EventInputError, eventBody, eventTypes, formatEventId, parseEventId, pingBody, serializeEventBody } from "../../src/domain/events/types.ts";

describe("event bodies", () => {
  test("type, timestamp, data in that order, compact", () => {
    const body = eventBody("action.booked", "2026-01-15T14:30:00.000Z", { id: "a1", usd: "4.12" });
    expect(serializeEventBody(body)).toBe('{"type":"action.booked","timestamp":"2026-01-15T14:30:00.000Z","data":{"id":"a1","usd":"4.12"}}');
    // Field order does not depend on how the object was built.
    expect(serializeEventBody({ data: { x: 1 }, timestamp: "2026-01-15T14:30:00.000Z", type: "wallet.gap" } as never)).toBe(
      '{"type":"wallet.gap","timestamp":"2026-01-15T14:30:00.000Z","data":{"x":1}}',
    );
  });

  test("the five event types and ping", () => {
    expect([...eventTypes]).toEqual(["action.scheduled", "action.booked", "action.revised", "wallet.synced", "wallet.gap"]);
    const ping = pingBody("2026-01-15T14:30:00.000Z", "sub_1");
    expect(ping.type).toBe("ping");
    expect(ping.data.subscriptionId).toBe("sub_1");
  });

  test("an unknown type or a timestamp that is not ISO UTC is refused with a code", () => {
    expect(() => eventBody("action.deleted" as never, "2026-01-15T14:30:00.000Z", {})).toThrow(EventInputError);
    for (const ts of ["2026-01-15 14:30:00", "2026-01-15T14:30:00+01:00", "1736951400", "2026-13-45T99:00:00Z"]) {
      let code = "";
      try {
        eventBody("wallet.synced", ts, {});
      } catch (e) {
        code = (e as EventInputError).code;
      }
      expect({ ts, code }).toEqual({ ts, code: "invalid_timestamp" });
    }
  });

  test("event ids: evt_<sequence>, parsed back; anything else is not an id", () => {
    fc.assert(fc.property(fc.bigInt({ min: 1n, max: 2n ** 62n }), (n) => parseEventId(formatEventId(n)) === n));
    for (const bad of ["", "evt_", "evt_0", "evt_01", "evt_1.2", "evt_-3", "msg_4", "evt_1 x", null, undefined]) expect(parseEventId(bad)).toBeNull();
    expect(() => formatEventId(0)).toThrow(EventInputError);
    expect(formatEventId(42)).not.toContain(".");
  });
});

describe("subscriptions", () => {
  test("--events: known names, blanks and repeats dropped; none means all", () => {
    expect(parseEventFilter("action.booked, wallet.gap,,action.booked")).toEqual(["action.booked", "wallet.gap"]);
    expect(parseEventFilter("")).toBeNull();
    expect(parseEventFilter(undefined)).toBeNull();
    expect(() => parseEventFilter("action.booked,wallet.deleted")).toThrow(/wallet\.deleted/);
    expect(subscribesTo(["wallet.gap"], "action.booked")).toBe(false);
    expect(subscribesTo(["wallet.gap"], "wallet.gap")).toBe(true);
    expect(subscribesTo(["wallet.gap"], "ping")).toBe(true);
    expect(subscribesTo(null, "action.revised")).toBe(true);
  });

  test("webhook URLs: http(s), no credentials, no fragment; the error never repeats the URL", () => {
    expect(checkWebhookUrl(" https://hooks.example.com/in?token=abc ")).toBe("https://hooks.example.com/in?token=abc");
    expect(checkWebhookUrl("http://127.0.0.1:8080")).toBe("http://127.0.0.1:8080/");
    for (const bad of ["ftp://x.example/secret-ftp", "https://user:secret-pw@x.example/", "https://x.example/p#secret-frag", "not a url secret-text", "javascript:alert(1)"]) {
      let message = "";
      try {
        checkWebhookUrl(bad);
      } catch (e) {
        message = (e as Error).message;
        expect((e as { code?: string }).code).toBe("invalid_webhook_url");
      }
      expect(message).not.toBe("");
      expect(message).not.toContain("secret");
    }
  });
});

describe("typed event data (src/events/bodies.ts)", () => {
  test("a wallet event carries the sync status the API shows; the body's data passes the API's own schema", async () => {
    const { Value } = await import("@sinclair/typebox/value");
    const { FormatRegistry } = await import("@sinclair/typebox");
    // TypeBox knows no formats by itself; the schemas use date-time for timestamps.
    if (!FormatRegistry.Has("date-time")) FormatRegistry.Set("date-time", (v) => !Number.isNaN(Date.parse(v)));
    const { SyncStatusResponse } = await import("../../schemas/v1/wallets.ts");
    const { eventText } = await import("../../src/events/bodies.ts");
    const status = {
      owner: "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU",
      status: "partial" as const,
      requestedAt: "2026-01-15T14:00:00.000Z",
      startedAt: "2026-01-15T14:00:01.000Z",
      finishedAt: "2026-01-15T14:02:00.000Z",
      progress: { phase: "done", done: 3, total: 3 },
      transactionsFetched: 120,
      gaps: [{ address: "9aQ2wYPbS7NMDo4Xb5Jx8xDgCDv8RzHn1aKq3N3v1xyz", reason: "RPC pruned this history" }],
      error: null,
      attempts: 1,
      nextRetryAt: null,
    };
    const text = eventText("wallet.gap", new Date("2026-01-15T14:02:00.000Z"), status);
    const parsed = JSON.parse(text);
    expect(parsed.type).toBe("wallet.gap");
    expect(Value.Check(SyncStatusResponse, parsed.data)).toBe(true);
    // @ts-expect-error an action event cannot carry a wallet status
    eventText("action.booked", new Date(), status);
  });
});
