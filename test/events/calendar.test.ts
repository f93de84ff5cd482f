// The calendar of pending actions through the real server (docs/events.md#the-calendar): a
// multiplier change the mint poll sees an hour ahead is on GET /v2/calendar with each wallet's
// expected income, and on the read-only iCalendar URL, which ical.js (Mozilla's maintained
// RFC 5545 parser) reads; another tenant sees none of it; a revoked URL answers 404.
import { afterAll, afterEach, expect, test } from "bun:test";
import ICAL from "ical.js";
import { Value } from "@sinclair/typebox/value";
import * as S from "../../schemas/index.ts";
import { calendarUid } from "../../src/domain/events/icalendar.ts";
import { createCalendarToken, revokeCalendarTokens } from "../../src/ledger/calendar.ts";
import { createSharedClock } from "../../src/sync/shared-clock.ts";
import { call } from "../harness/index.ts";
import { eventually, removeEventDirs, startEventServer, stopEventServers } from "../support/event-server.ts";
import { buildWalletScenario } from "../support/wallet-chain.ts";

afterEach(stopEventServers);
afterAll(removeEventDirs);

test("a scheduled multiplier change: on /v2/calendar with the wallet's expected income, on the .ics URL (ical.js reads it), not for another tenant; revoked, 404", async () => {
  const s = buildWalletScenario({ transfers: 6, seed: 61 });
  const clock = createSharedClock();
  const { server, key, events, register, read } = await startEventServer(s, { MINT_POLL_SECONDS: "1" }, clock);
  const acme = await key("acme");
  const other = await key("other");
  await register(acme, s.owner);
  await eventually("registration", events, (e) => e.length === 1);
  expect((await read(acme, "/v2/calendar")).actions).toEqual([]);

  const activation = Math.floor(Date.now() / 1000) + 3600;
  s.addUpdate(1.0042, activation);
  await eventually("action.scheduled", events, (e) => e.some((x) => x.type === "action.scheduled"));
  const listed = (await read(acme, `/v2/actions?owner=${s.owner}`)).actions[0];

  const cal = await read(acme, "/v2/calendar");
  expect(Value.Check(S.CalendarResponse, cal)).toBe(true);
  expect(cal.actions).toHaveLength(1);
  const pending = cal.actions[0];
  expect(pending).toMatchObject({ mint: listed.mint, symbol: listed.symbol, type: listed.type, state: "confirmed", expectedAt: new Date(activation * 1000).toISOString() });
  expect(pending.wallets).toEqual([{ owner: s.owner, incomeUnits: listed.exact.incomeUnits ?? expect.anything(), usd: listed.exact.usd, incomeUnitsShown: expect.anything(), usdShown: listed.usd }]);
  expect((await read(acme, `/v2/calendar?owner=${s.owner}`)).actions).toEqual(cal.actions);
  expect((await read(other, "/v2/calendar")).actions).toEqual([]); // another tenant: nothing
  expect((await call(server.url, `/v2/calendar?owner=${s.owner}`, { key: other })).status).toBe(404); // not its wallet

  const token = await createCalendarToken(server.ledger.db, "acme");
  const ics = await call(server.url, `/v2/calendar/${token}.ics`); // no key: the token is the credential
  expect(ics.status).toBe(200);
  expect(ics.headers.get("content-type")).toStartWith("text/calendar");
  const vcal = new ICAL.Component(ICAL.parse(ics.text));
  const events_ = vcal.getAllSubcomponents("vevent");
  expect(events_).toHaveLength(1);
  const ev = new ICAL.Event(events_[0]!);
  expect(ev.uid).toBe(calendarUid(pending.key));
  expect(ev.startDate.toJSDate().getTime()).toBe(activation * 1000);
  expect(ev.summary).toContain(listed.symbol);
  expect(ev.description).toContain(s.owner);
  expect(events_[0]!.getFirstPropertyValue("status")).toBe("CONFIRMED");

  // Another tenant's token shows its own (empty) calendar; a revoked or unknown one is 404.
  const otherToken = await createCalendarToken(server.ledger.db, "other");
  expect(new ICAL.Component(ICAL.parse((await call(server.url, `/v2/calendar/${otherToken}.ics`)).text)).getAllSubcomponents("vevent")).toHaveLength(0);
  expect(await revokeCalendarTokens(server.ledger.db, "acme")).toBe(1);
  expect((await call(server.url, `/v2/calendar/${token}.ics`)).status).toBe(404);
  expect((await call(server.url, `/v2/calendar/${token}`)).status).toBe(404);
  expect((await call(server.url, "/v2/calendar/calt_nothing.ics")).status).toBe(404);

  // Once in force, it leaves the calendar.
  clock.set(new Date((activation + 1) * 1000));
  await eventually("action.booked", events, (e) => e.some((x) => x.type === "action.booked"));
  expect((await read(acme, "/v2/calendar")).actions).toEqual([]);
}, 180_000);
