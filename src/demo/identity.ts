// What the HTTP side knows of the demo: its tenant, key names, label and wallets. Loading the
// demo (load.ts) runs syncs and booking, which only the worker thread does.
import recording from "./recording.json" with { type: "json" };

export const demoTenant = "demo";
/** Names of the keys `serve --demo` prints (`demo-<ms>`): each start revokes the earlier ones. */
export const demoKeyPrefix = "demo-";

export const DEMO_LABEL = { kind: "synthetic" as const, description: "Embedded demo: real xStocks mints, multipliers and issuer figures; synthetic wallets" };

export function demoOwners(): string[] {
  return recording.owners;
}
