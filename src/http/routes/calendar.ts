// The calendar of pending actions (docs/events.md#the-calendar): as JSON for a key with
// ledger:read, and as iCalendar at a read-only URL whose token is its only credential
// (`ca-ledger calendar-url`), for calendar apps, which cannot send a key.
import * as S from "../../../schemas/index.ts";
import { quantityTextForPeople, usdTextForPeople } from "../../domain/display.ts";
import { renderCalendar } from "../../domain/events/icalendar.ts";
import { pendingActions, tenantOfCalendarToken } from "../../ledger/calendar.ts";
import { ApiFailure } from "../errors.ts";
import { route, Serialized } from "../route.ts";
import { registeredOwner, walletErrors } from "./guard.ts";

export const calendarRoutes = [
  route({
    method: "GET",
    path: "/v2/calendar",
    scope: "ledger:read",
    query: S.CalendarQuery,
    response: { 200: S.CalendarResponse, ...walletErrors },
    tool: {
      name: "get_calendar",
      summarize: (b) =>
        b.actions[0]
          ? `${b.actions.length} pending action(s); the next, ${b.actions[0].type} of ${b.actions[0].symbol ?? b.actions[0].mint}, expected ${b.actions[0].expectedAt}.`
          : "No pending action: nothing scheduled or announced for these wallets.",
    },
    tag: "v2",
    summary: "Pending actions of the tenant's wallets: expected time and each wallet's expected income",
    description: "A multiplier change scheduled on chain (confirmed) or announced by the issuer (announced) and not in force yet. Amounts are estimates until the change takes effect.",
    handler: async ({ principal, query }, app) => {
      if (query.owner !== undefined) await registeredOwner(app, principal, query.owner);
      const actions = await pendingActions(app.ledger.db, principal.tenantId, query.owner ?? null);
      return {
        actions: actions.map((a) => ({
          key: a.key,
          mint: a.mint,
          symbol: a.symbol,
          type: a.type,
          expectedAt: a.expectedAt,
          state: a.state,
          wallets: a.wallets.map((w) => ({
            owner: w.owner,
            incomeUnits: w.quantity,
            usd: w.usd,
            incomeUnitsShown: quantityTextForPeople(w.quantity, a.decimals),
            usdShown: usdTextForPeople(w.usd),
          })),
        })),
      };
    },
  }),
  route({
    method: "GET",
    path: "/v2/calendar/:file",
    scope: null,
    params: S.CalendarFileParams,
    response: { 200: S.ICalendarText, 404: S.errors[404] },
    tag: "v2",
    summary: "The tenant's pending actions as an iCalendar feed (RFC 5545), for calendar apps",
    description:
      "The path is /v2/calendar/<token>.ics with the token `ca-ledger calendar-url` printed: the token is the only credential (no key), read-only, and revoked with `ca-ledger calendar-url --revoke`. An unknown or revoked token is 404.",
    handler: async ({ params }, app) => {
      const token = params.file.endsWith(".ics") ? params.file.slice(0, -4) : "";
      const tenantId = token ? await tenantOfCalendarToken(app.ledger.db, token) : null;
      if (tenantId === null) throw new ApiFailure("not_found", "No calendar at this address (the link may have been revoked).");
      const text = renderCalendar({ name: "ca-ledger: pending corporate actions", now: new Date(), version: app.version, actions: await pendingActions(app.ledger.db, tenantId) });
      return new Serialized(text, "text/calendar; charset=utf-8", { "cache-control": "private, max-age=300" });
    },
  }),
];
