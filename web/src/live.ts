// The live stream in the page (docs/events.md#the-live-stream): an EventSource on the API's
// GET /v2/events through the dashboard's same-origin path (the session's cookie is its
// credential). Each event drops the cached reads it makes stale, so the views showing them read
// again; nothing is polled. The browser reconnects by itself, sending Last-Event-ID, and gets the
// events it missed.
import { useEffect, useState } from "preact/hooks";
import { apiBase } from "./api.ts";

export const liveEventTypes = ["action.scheduled", "action.booked", "action.revised", "wallet.synced", "wallet.gap"] as const;

export interface LiveState {
  connected: boolean;
  /** The last event seen: its type, wallet and when it happened. */
  last: { type: string; owner: string | null; at: string } | null;
}

/** Reads no event changes: the server's health and the instruments' names and lineage. */
const UNCHANGED = /^(health|assets|lineage:)/;
/** A Solana address (base58, 32 to 44 characters) inside a cache key: the key is that wallet's. */
const WALLET_IN_KEY = /[1-9A-HJ-NP-Za-km-z]{32,44}/;

/**
 * The cache keys an event about `owner` makes stale: every read of that wallet, and every read
 * across wallets (the wallet list, the holdings, the calendar, the reports). Another wallet's
 * reads stay. An event without a wallet makes every changing read stale.
 */
export function staleKeys(keys: Iterable<string>, owner: string | null): string[] {
  return [...keys].filter((k) => !UNCHANGED.test(k) && (owner === null || k.includes(owner) || !WALLET_IN_KEY.test(k)));
}

/** The wallet an event's body names (`data.owner`), if any. */
export function ownerOf(body: string): string | null {
  try {
    const owner = (JSON.parse(body) as { data?: { owner?: unknown } }).data?.owner;
    return typeof owner === "string" ? owner : null;
  } catch {
    return null;
  }
}

/** Listens while mounted; `onEvent` gets each event's wallet. */
export function useLiveEvents(onEvent: (owner: string | null) => void): LiveState {
  const [state, setState] = useState<LiveState>({ connected: false, last: null });
  useEffect(() => {
    if (typeof EventSource === "undefined") return;
    const source = new EventSource(`${apiBase}/v2/events`);
    source.onopen = () => setState((s) => ({ ...s, connected: true }));
    source.onerror = () => setState((s) => ({ ...s, connected: false }));
    const listener = (e: MessageEvent<string>) => {
      const owner = ownerOf(e.data);
      let at = "";
      try {
        at = String((JSON.parse(e.data) as { timestamp?: string }).timestamp ?? "");
      } catch {
        /* shown without a time */
      }
      setState({ connected: true, last: { type: e.type, owner, at } });
      onEvent(owner);
    };
    for (const t of liveEventTypes) source.addEventListener(t, listener);
    return () => source.close();
  }, []);
  return state;
}
