// What every wallet-scoped route checks after validation: the owner is a real address, and
// this tenant registered it. Another tenant's wallet reads exactly like an unknown one.
import { isAddress } from "@solana/kit";
import * as S from "../../../schemas/index.ts";
import type { KeyPrincipal } from "../../ledger/keys.ts";
import type { Sql } from "../../ledger/sql/port.ts";
import { NO_BOOKS, registration, registrations } from "../../ledger/queries/common.ts";
import { ApiFailure } from "../errors.ts";
import { remembered } from "../remembered.ts";
import type { RouteContext } from "../route.ts";

/** What a wallet-scoped route answers beyond every keyed route: a bad owner (400) and a wallet this tenant did not register (404). */
export const walletErrors = { 400: S.errors[400], 404: S.errors[404] };

// Base58 decoding costs tens of microseconds (BigInt); the same few wallets are asked for again and again.
const isOwner = remembered(isAddress, 10_000);

export function checkOwner(owner: string): void {
  if (!isOwner(owner)) throw new ApiFailure("invalid_owner", "owner must be a base58 Solana address of 32 bytes.");
}

/** Refuses a wallet this tenant did not register (after checking the address). */
export async function registeredOwner(app: RouteContext, principal: KeyPrincipal, owner: string, on: Sql = app.ledger.db): Promise<void> {
  await seesBooks(app, principal, owner, on);
}

/**
 * The owner whose books this request reads: the wallet itself once the tenant's own first sync
 * of it finished, else an owner that matches no row, so every read answers as for a wallet with
 * nothing booked yet (the tenant learns nothing from another tenant's earlier syncs).
 */
export async function booksOwner(app: RouteContext, principal: KeyPrincipal, owner: string, on: Sql = app.ledger.db): Promise<string> {
  return (await seesBooks(app, principal, owner, on)) ? owner : NO_BOOKS;
}

/**
 * Whether the tenant follows the wallet and sees its books yet (the ledger's rule, `booksVisible`
 * in tables/tenant-wallets.ts, read from its registration; refused when it does not follow it).
 * `on`: the ledger, or a transaction of its (readTogether) that the route's reads share.
 */
async function seesBooks(app: RouteContext, principal: KeyPrincipal, owner: string, on: Sql = app.ledger.db): Promise<boolean> {
  return (await followedWallet(owner, () => registration(on, principal.tenantId, owner))).booksVisible;
}

/**
 * Every wallet-scoped read's order of checks: the address first, then `read`, the tenant's
 * registration (alone, or with the route's rows in one statement, as the portfolio's), whose null
 * means the tenant does not follow the wallet: refused exactly as a wallet nobody registered.
 */
export async function followedWallet<T>(owner: string, read: () => Promise<T | null>): Promise<T> {
  checkOwner(owner);
  const r = await read();
  if (r === null) throw new ApiFailure("wallet_not_registered", "This wallet is not registered for your tenant; register it with POST /v1/wallets/sync.");
  return r;
}

/**
 * The wallets a cross-wallet read covers: those named (each checked like `owner` above), else all
 * the tenant registered; and the ones among them whose books it may read (the others count as
 * empty, see booksOwner).
 */
export async function tenantOwners(app: RouteContext, principal: KeyPrincipal, named: readonly string[] | undefined): Promise<{ owners: string[]; books: string[] }> {
  if (!named?.length) {
    const all = await registrations(app.ledger.db, principal.tenantId);
    return { owners: all.map((r) => r.owner), books: all.filter((r) => r.booksVisible).map((r) => r.owner) };
  }
  const owners = [...new Set(named)];
  const books: string[] = [];
  for (const o of owners) if (await seesBooks(app, principal, o)) books.push(o);
  return { owners, books };
}

export function paging(query: { limit?: number; offset?: number }) {
  return { limit: query.limit ?? 50, offset: query.offset ?? 0 };
}
