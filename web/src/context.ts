// What every view needs: the session, the client acting for it, the page's read cache.
import type { Client, WalletsResponse } from "@ca-ledger/client";
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import { cached } from "./api.ts";
import type { SessionView } from "./session.ts";

export interface Ledger {
  session: SessionView;
  api: Client;
  cache: Map<string, Promise<unknown>>;
  /** Drops the cache and renders again (the "Refresh" button, a registered wallet). */
  refresh(): void;
}

export const LedgerContext = createContext<Ledger | null>(null);

export function useLedger(): Ledger {
  const ledger = useContext(LedgerContext);
  if (!ledger) throw new Error("useLedger outside a signed-in page");
  return ledger;
}

/** The tenant's wallets, read once per page life (every view starts from them). */
export const walletsOf = (ledger: Ledger): Promise<WalletsResponse> => cached(ledger.cache, "wallets", () => ledger.api.wallets());
