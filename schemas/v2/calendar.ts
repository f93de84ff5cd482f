// GET /v2/calendar (docs/events.md#the-calendar): the tenant's pending actions with what each wallet can expect.
import { Type } from "@sinclair/typebox";
import { Address, MintField, NullableDecimal, NullableString, Timestamp, describe, literals } from "../common.ts";

export const CalendarQuery = Type.Object({
  owner: Type.Optional(describe(Address, "Only this wallet (base58); it must be registered by this tenant. Without it: every wallet of the tenant")),
});

export const CalendarWallet = Type.Object(
  {
    owner: Type.String({ description: "The wallet (base58 owner address)" }),
    incomeUnits: describe(NullableDecimal, "Units of the token the wallet can expect, exact; null when not known yet"),
    usd: describe(NullableDecimal, "Their USD value, exact; null when not known yet"),
    incomeUnitsShown: describe(NullableString, "incomeUnits as people read it (the display rule, at the mint's decimals)"),
    usdShown: describe(NullableString, "usd as people read it (6 places)"),
  },
  { title: "CalendarWallet", description: "What one wallet can expect from a pending action" },
);

export const PendingActionItem = Type.Object(
  {
    key: Type.String({ description: "What identifies the pending change across reads (mint and transition); the iCalendar UID derives from it" }),
    mint: MintField,
    symbol: Type.String({ description: "Ticker of the instrument" }),
    type: Type.String({ description: "The v2 action type (cash_dividend, forward_split, …)" }),
    expectedAt: describe(Timestamp, "When the change is expected to take effect"),
    state: literals(["announced", "confirmed"], { description: "confirmed: written on chain, waiting for its time; announced: an issuer record, nothing on chain yet" }),
    wallets: Type.Array(CalendarWallet, { description: "The tenant's wallets the change concerns, with what each can expect" }),
  },
  { title: "PendingAction", description: "A multiplier change known before it takes effect" },
);

export const CalendarResponse = Type.Object(
  { actions: Type.Array(PendingActionItem, { description: "In order of expected time" }) },
  { title: "Calendar", description: "The tenant's pending actions" },
);

export const CalendarFileParams = Type.Object({
  file: Type.String({ maxLength: 100, description: "<token>.ics: the token `ca-ledger calendar-url` printed" }),
});

export const ICalendarText = Type.String({ title: "ICalendarText", description: "iCalendar (RFC 5545): one VEVENT per pending action", contentMediaType: "text/calendar" });

export const EventStreamText = Type.String({
  title: "EventStreamText",
  description: "Server-Sent Events: one message per event (id: the event id, event: its type, data: its body); a keep-alive comment every 15 s",
  contentMediaType: "text/event-stream",
});

export const EventsQuery = Type.Object({
  lastEventId: Type.Optional(Type.String({ maxLength: 40, description: "Resume after this event id (evt_<n>), for clients that cannot send the Last-Event-ID header; the header wins" })),
});
