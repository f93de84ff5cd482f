// The live stream (docs/events.md#the-live-stream): the tenant's events as Server-Sent Events,
// the same events webhooks deliver, for the dashboard and any client that keeps a connection.
import * as S from "../../../schemas/index.ts";
import { parseEventId } from "../../domain/events/types.ts";
import { latestTenantEvent } from "../../ledger/outbox.ts";
import { eventStream } from "../event-stream.ts";
import { route } from "../route.ts";

export const eventRoutes = [
  route({
    method: "GET",
    path: "/v2/events",
    scope: "ledger:read",
    query: S.EventsQuery,
    takesRequest: true, // for the Last-Event-ID header a reconnecting EventSource sends
    response: { 200: S.EventStreamText },
    tag: "v2",
    summary: "The tenant's events as Server-Sent Events (action.scheduled, action.booked, action.revised, wallet.synced, wallet.gap)",
    description:
      "One message per event: id (evt_<n>, the webhook-id of its deliveries), event (its type), data (the body webhooks deliver). " +
      "A client that reconnects sends Last-Event-ID (or ?lastEventId=) and gets every event after it; without one, or with one that is not an event id, the stream starts from now. " +
      "A comment line keeps a quiet stream open.",
    handler: async ({ principal, request }, app) => {
      // The header wins; the query (checked against EventsQuery) for clients that cannot send it.
      const resume = parseEventId(request?.headers.get("last-event-id") ?? (request ? new URL(request.url).searchParams.get("lastEventId") : null));
      const after = resume ?? (await latestTenantEvent(app.ledger.db, principal.tenantId));
      const headers = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no" };
      // HEAD (which Elysia routes to GET) gets the headers alone: a stream would never end, its
      // poll running on the server for as long as the client waits for a body it must not read.
      if (request?.method === "HEAD") return new Response(null, { headers });
      // A stream, so a Response of its own (the registry adds the request's headers to it).
      return new Response(eventStream(app.ledger.db, principal.tenantId, after), { headers });
    },
  }),
];
