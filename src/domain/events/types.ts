// The events the ledger emits (docs/events.md#event-types): five kinds of ledger change and the
// `ping` a subscription can ask for. Every body has the same three fields in the same order,
// `{"type","timestamp","data"}`, as the Standard Webhooks payload structure recommends; `data`
// holds the v2 action (or the wallet's sync status) exactly as the API shows it, so a receiver
// needs no second request. The body is serialized once, when the event enters the outbox, and
// those bytes are what every attempt signs and sends.

export const eventTypes = ["action.scheduled", "action.booked", "action.revised", "wallet.synced", "wallet.gap"] as const;
export type EventType = (typeof eventTypes)[number];
export const PING = "ping";
/** What a delivery's body can carry: an event, or the ping `webhooks test` sends when there is none yet. */
export type DeliveredType = EventType | typeof PING;

export interface EventBody<T extends DeliveredType = DeliveredType, D = unknown> {
  type: T;
  /** When the change happened in the ledger (ISO-8601 UTC); not when it is delivered. */
  timestamp: string;
  data: D;
}

/** What a ping's `data` holds. */
export interface PingData {
  subscriptionId: string;
  message: string;
}

/** Bad input to an event function: a code a route or command can map, and a sentence. */
export class EventInputError extends Error {
  constructor(
    readonly code: "unknown_event_type" | "invalid_timestamp" | "invalid_event_id",
    message: string,
  ) {
    super(message);
    this.name = "EventInputError";
  }
}

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

export function isEventType(s: string): s is EventType {
  return (eventTypes as readonly string[]).includes(s);
}

/** A body for one event; `timestamp` must be ISO-8601 UTC (what `Date#toISOString` writes). */
export function eventBody<T extends DeliveredType, D>(type: T, timestamp: string, data: D): EventBody<T, D> {
  if (type !== PING && !isEventType(type)) throw new EventInputError("unknown_event_type", `Unknown event type ${JSON.stringify(type)}; expected one of ${eventTypes.join(", ")}.`);
  if (!ISO_UTC.test(timestamp) || Number.isNaN(Date.parse(timestamp))) {
    throw new EventInputError("invalid_timestamp", `An event timestamp is ISO-8601 in UTC (2026-01-15T14:30:00.000Z); got ${JSON.stringify(timestamp)}.`);
  }
  return { type, timestamp, data };
}

export function pingBody(timestamp: string, subscriptionId: string): EventBody<typeof PING, PingData> {
  return eventBody(PING, timestamp, { subscriptionId, message: "A test delivery from ca-ledger: no event has been written for this subscription yet." });
}

/**
 * The exact text sent and signed: compact JSON, `type`, `timestamp`, `data` in that order. The
 * outbox stores this text, so a retry sends the same bytes as the first attempt.
 */
export function serializeEventBody(body: EventBody): string {
  return JSON.stringify({ type: body.type, timestamp: body.timestamp, data: body.data });
}

// Event ids: `evt_` and the outbox's sequence number. The same id is the `webhook-id` of every
// delivery of the event and the `id:` of its Server-Sent Event, so `Last-Event-ID` resumes after
// it. No `.` may appear in it: the signed content joins id, timestamp and body with dots.
const EVENT_ID = /^evt_([1-9]\d{0,18})$/;

export function formatEventId(sequence: bigint | number): string {
  const n = BigInt(sequence);
  if (n < 1n) throw new EventInputError("invalid_event_id", `An event sequence starts at 1; got ${n}.`);
  return `evt_${n}`;
}

/** The sequence of an event id, or null when the text is not one (a `Last-Event-ID` from elsewhere). */
export function parseEventId(id: string | null | undefined): bigint | null {
  const m = EVENT_ID.exec((id ?? "").trim());
  return m ? BigInt(m[1]!) : null;
}
