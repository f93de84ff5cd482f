// What a subscription is given when it is added (docs/events.md#subscriptions): the URL its
// deliveries go to and the event types it wants. Checked here so the command and any later
// route refuse the same things with the same words. Pure.
import { EventInputError, PING, eventTypes, isEventType, type DeliveredType, type EventType } from "./types";

export class SubscriptionInputError extends Error {
  constructor(
    readonly code: "invalid_webhook_url",
    message: string,
  ) {
    super(message);
    this.name = "SubscriptionInputError";
  }
}

/**
 * The URL deliveries are POSTed to, normalized. Only http and https; no user name or password in
 * it (they would travel as Basic credentials and show wherever the URL is shown: a receiver
 * authenticates deliveries by their signature) and no fragment (never sent). The error does not
 * repeat the URL, which may carry a token in its path or query.
 */
export function checkWebhookUrl(text: string): string {
  let u: URL;
  try {
    u = new URL(text.trim());
  } catch {
    throw new SubscriptionInputError("invalid_webhook_url", "The webhook URL does not parse; expected http(s)://host[:port]/path.");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new SubscriptionInputError("invalid_webhook_url", `A webhook URL is http or https, not ${u.protocol.replace(/:$/, "")}.`);
  if (u.username || u.password) throw new SubscriptionInputError("invalid_webhook_url", "A webhook URL cannot hold a user name or password: receivers check the signature instead.");
  if (u.hash) throw new SubscriptionInputError("invalid_webhook_url", "A webhook URL cannot hold a #fragment (it is never sent).");
  if (!u.hostname) throw new SubscriptionInputError("invalid_webhook_url", "A webhook URL names a host.");
  return u.href;
}

/**
 * The event types a subscription asks for, from `--events a,b` (blank entries ignored, repeats
 * dropped, order kept); null for no filter (every type). An unknown name is an error that names it.
 */
export function parseEventFilter(csv: string | null | undefined): EventType[] | null {
  if (csv === null || csv === undefined || csv.trim() === "") return null;
  const out: EventType[] = [];
  for (const raw of csv.split(",")) {
    const name = raw.trim();
    if (name === "") continue;
    if (!isEventType(name)) throw new EventInputError("unknown_event_type", `Unknown event type ${JSON.stringify(name)}; expected one of ${eventTypes.join(", ")}.`);
    if (!out.includes(name)) out.push(name);
  }
  return out.length ? out : null;
}

/** Whether a subscription with this filter receives an event of this type (a ping always goes). */
export function subscribesTo(filter: readonly EventType[] | null, type: DeliveredType): boolean {
  return type === PING || filter === null || filter.includes(type);
}
