// The calendar of pending actions (docs/events.md#the-calendar): each multiplier change known for
// a tenant's wallets and not in force yet, with what each wallet can expect; and the read-only
// iCalendar URLs' tokens (`ca-ledger calendar-url`).
import { createHash, randomBytes } from "node:crypto";
import type { PendingAction } from "../domain/events/icalendar.ts";
import { findTenant } from "./keys.ts";
import type { Sql } from "./sql/port.ts";
import { actionDocument, actionSql } from "./tables/actions.ts";
import { calendarTokenSql } from "./tables/calendar-tokens.ts";

/** The v2 detail fields the calendar reads (projections.ts actionDetailBase). */
interface DetailFields {
  symbol: string;
  type: string;
  decimals: number;
  effectiveAt: string;
  lifecycle: { state: string };
  factor: string | null;
  exact: { incomeUnits?: string | null; usd?: string | null };
}

/**
 * The tenant's pending actions, one per change (its mint and transition, or its time and type when
 * it has no transition yet), each with the wallets of the tenant it concerns, in time order. Only
 * wallets whose first sync for this tenant has finished (the tenant sees their books), and only
 * `owner` when given.
 */
export async function pendingActions(db: Sql, tenantId: number, owner: string | null = null): Promise<PendingAction[]> {
  const rows = await db.all(actionSql.pendingOfTenant, { tenantId, owner });
  const byKey = new Map<string, PendingAction>();
  for (const r of rows) {
    const d = JSON.parse(actionDocument(r)) as DetailFields;
    const key = `${r.mint}:${r.transition_key ?? `${d.type}@${r.effective_at}`}`;
    let p = byKey.get(key);
    if (!p) {
      p = {
        key,
        mint: r.mint,
        symbol: d.symbol,
        decimals: d.decimals,
        type: d.type,
        expectedAt: d.effectiveAt,
        state: d.lifecycle.state === "confirmed" ? "confirmed" : "announced",
        note: d.factor ? `Multiplier factor ${d.factor}.` : null,
        wallets: [],
      };
      byKey.set(key, p);
    }
    p.wallets.push({ owner: r.owner, quantity: d.exact.incomeUnits ?? null, usd: d.exact.usd ?? null });
  }
  return [...byKey.values()];
}

export class CalendarTokenError extends Error {
  readonly code = "tenant_not_found";
}

const sha256 = (token: string) => createHash("sha256").update(token).digest("hex");

/** A token's shape: `calt_` and 43 base64url characters (32 random bytes). */
export const CALENDAR_TOKEN = /^calt_[A-Za-z0-9_-]{43}$/;

/** Makes a new calendar token for the tenant: shown once; only its SHA-256 is kept. */
export async function createCalendarToken(db: Sql, tenant: string, now = new Date()): Promise<string> {
  const token = "calt_" + randomBytes(32).toString("base64url");
  await db.write(async (tx) => {
    const tenantId = await findTenant(tx, tenant);
    if (tenantId === null) throw new CalendarTokenError(`no tenant ${JSON.stringify(tenant)} (a tenant is made by its first key: ca-ledger keys create <name> --tenant ${tenant})`);
    await tx.run(calendarTokenSql.insert, { sha256: sha256(token), tenantId, at: now.toISOString() });
  });
  return token;
}

/** Revokes every live calendar token of the tenant; how many. */
export async function revokeCalendarTokens(db: Sql, tenant: string, now = new Date()): Promise<number> {
  return db.write(async (tx) => {
    const tenantId = await findTenant(tx, tenant);
    if (tenantId === null) throw new CalendarTokenError(`no tenant ${JSON.stringify(tenant)}`);
    return (await tx.run(calendarTokenSql.revokeOfTenant, { tenantId, at: now.toISOString() })).changes;
  });
}

/** The tenant a live token reads for; null for an unknown or revoked one. */
export async function tenantOfCalendarToken(db: Sql, token: string): Promise<number | null> {
  if (!CALENDAR_TOKEN.test(token)) return null;
  const row = await db.get(calendarTokenSql.tenantOf, { sha256: sha256(token) });
  return row ? Number(row.tenant_id) : null;
}
