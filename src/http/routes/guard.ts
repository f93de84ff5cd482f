// What every wallet-scoped route checks after validation: the owner is a real address, and
// this tenant registered it. Another tenant's wallet reads exactly like an unknown one.
import { isAddress } from "@solana/kit";
import type { KeyPrincipal } from "../../ledger/keys.ts";
import { registration, registrations } from "../../ledger/queries/common.ts";
import type { AppContext } from "../app.ts";
import { ApiFailure } from "../errors.ts";

export function principalOf(ctx: AppContext, request: Request): KeyPrincipal {
  const p = ctx.states.get(request)?.principal;
  if (!p) throw new Error("route reached without a principal"); // auth runs first; this is a bug
  return p;
}

// Base58 decoding costs tens of microseconds (BigInt); the same few wallets are asked for again
// and again, so remember the valid ones (bounded, cleared when full).
const validOwners = new Set<string>();
const maxRemembered = 10_000;

export function checkOwner(owner: string): void {
  if (validOwners.has(owner)) return;
  if (!isAddress(owner)) throw new ApiFailure("invalid_owner", "owner must be a base58 Solana address of 32 bytes.");
  if (validOwners.size >= maxRemembered) validOwners.clear();
  validOwners.add(owner);
}

export async function registeredOwner(ctx: AppContext, request: Request, owner: string): Promise<KeyPrincipal> {
  return (await ownerAndBooks(ctx, request, owner)).principal;
}

/**
 * The owner whose books this request reads: the wallet itself once the tenant's own first sync
 * of it finished, else an owner that matches no row, so every read answers as for a wallet with
 * nothing booked yet (the tenant learns nothing from another tenant's earlier syncs).
 */
export async function booksOwner(ctx: AppContext, request: Request, owner: string): Promise<string> {
  return (await ownerAndBooks(ctx, request, owner)).booksVisible ? owner : NO_BOOKS;
}
const NO_BOOKS = "";

async function ownerAndBooks(ctx: AppContext, request: Request, owner: string) {
  const principal = principalOf(ctx, request);
  checkOwner(owner);
  const r = await registration(ctx.ledger.db, principal.tenantId, owner);
  if (!r) throw new ApiFailure("wallet_not_registered", "This wallet is not registered for your tenant; register it with POST /v1/wallets/sync.");
  return { principal, booksVisible: r.booksVisible };
}

/**
 * The wallets a cross-wallet read covers: those named (each checked like `owner` above), else all
 * the tenant registered; and the ones among them whose books it may read (the others count as
 * empty, see booksOwner).
 */
export async function tenantOwners(ctx: AppContext, request: Request, named: readonly string[] | undefined): Promise<{ owners: string[]; books: string[] }> {
  if (!named?.length) {
    const all = await registrations(ctx.ledger.db, principalOf(ctx, request).tenantId);
    return { owners: all.map((r) => r.owner), books: all.filter((r) => r.booksVisible).map((r) => r.owner) };
  }
  const owners = [...new Set(named)];
  const books: string[] = [];
  for (const o of owners) if ((await ownerAndBooks(ctx, request, o)).booksVisible) books.push(o);
  return { owners, books };
}

export function paging(query: { limit?: number; offset?: number }) {
  return { limit: query.limit ?? 50, offset: query.offset ?? 0 };
}
