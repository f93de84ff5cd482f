// What each event's `data` holds, as types the compiler checks where the ledger writes an event
// (docs/events.md#event-types): the v2 action as GET /v2/actions lists it, or the wallet's sync
// status as GET /v1/wallets/{owner}/status shows it. The shapes are the API's own schemas, so an
// event cannot drift from what the API shows.
import type { Static } from "@sinclair/typebox";
import type { SyncStatusResponse } from "../../schemas/v1/wallets.ts";
import type { ActionSummary } from "../../schemas/v2/actions.ts";
import { eventBody, serializeEventBody, type DeliveredType, type EventBody, type PingData } from "../domain/events/types.ts";

export type ActionData = Static<typeof ActionSummary>;
export type WalletStatusData = Static<typeof SyncStatusResponse>;

export interface EventDataByType {
  "action.scheduled": ActionData;
  "action.booked": ActionData;
  "action.revised": ActionData;
  "wallet.synced": WalletStatusData;
  "wallet.gap": WalletStatusData;
  ping: PingData;
}

/** The text an outbox row stores for an event: the body, typed by its event type, serialized once. */
export function eventText<T extends DeliveredType>(type: T, at: Date, data: EventDataByType[T]): string {
  const body: EventBody<T, EventDataByType[T]> = eventBody(type, at.toISOString(), data);
  return serializeEventBody(body);
}
