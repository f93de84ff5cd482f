// The dashboard listens to the live stream (docs/events.md#the-live-stream) in a real headless
// Chromium (test/support/chromium.ts, driven by playwright-core), against the real server with
// its worker thread and loopback chain and issuer servers: signed in, the home view shows the
// pending actions (none yet); when the mint poll sees a scheduled multiplier change, the page
// hears action.scheduled and shows it under "Pending actions" with the wallet's expected income,
// without a reload or the Refresh button; once the change takes force it leaves the list.
import { afterAll, afterEach, expect, test } from "bun:test";
import { chromium, type BrowserContext } from "playwright-core";
import { createSharedClock } from "../../src/sync/shared-clock.ts";
import { tempDir } from "../harness/index.ts";
import { testBrowser } from "../support/chromium.ts";
import { eventually, removeEventDirs, startEventServer, stopEventServers } from "../support/event-server.ts";
import { buildWalletScenario } from "../support/wallet-chain.ts";

const chromiumFlags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
/** A browser step on a busy two-core machine: generous, since a timer is not what this test checks. */
const slow = 60_000;
let context: BrowserContext | null = null;
afterEach(async () => {
  await context?.close();
  await stopEventServers();
});
afterAll(removeEventDirs);

test("home shows pending actions; a scheduled change heard on the live stream appears without a reload, and leaves once in force", async () => {
  const s = buildWalletScenario({ transfers: 6, seed: 81 });
  const clock = createSharedClock();
  const { server, key, events, register } = await startEventServer(s, { MINT_POLL_SECONDS: "1" }, clock);
  const k = await key("acme");
  await register(k, s.owner);
  await eventually("registration", events, (e) => e.length === 1);

  const browser = testBrowser();
  context = await chromium.launchPersistentContext(tempDir("ca-ledger-chromium-live-"), {
    executablePath: browser.executablePath,
    env: { ...process.env, ...browser.env },
    headless: true,
    args: chromiumFlags,
    viewport: { width: 1280, height: 860 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  let documents = 0;
  page.on("request", (r) => {
    if (r.resourceType() === "document") documents++;
  });

  await page.goto(server.url + "/");
  await page.fill("#key", k);
  await page.click("button[type=submit]");
  await page.waitForSelector("#pending-none", { timeout: slow });
  await page.waitForSelector("#live.live", { timeout: slow }); // listening
  const loads = documents;

  const activation = Math.floor(Date.now() / 1000) + 3600;
  s.addUpdate(1.0042, activation);
  await eventually("action.scheduled", events, (e) => e.some((x) => x.type === "action.scheduled"));
  await page.waitForSelector("#pending-actions tbody tr", { timeout: slow });
  expect(await page.getAttribute("#live", "data-last-event")).toBe("action.scheduled");
  const row = await page.$$eval("#pending-actions tbody tr td", (cells) => cells.map((c) => c.textContent?.trim()));
  const pending = (await (await fetch(`${server.url}/v2/calendar`, { headers: { authorization: `Bearer ${k}` } })).json()).actions[0];
  expect(row[0]).toBe(`${pending.expectedAt.slice(0, 10)} ${pending.expectedAt.slice(11, 16)} UTC`);
  expect(row[1]).toBe(pending.symbol);
  expect(row[3]).toBe("confirmed");
  expect(row[4]).toBe(`${s.owner.slice(0, 6)}…${s.owner.slice(-5)}`);
  expect(documents).toBe(loads); // no reload: the stream's event refreshed the view

  clock.set(new Date((activation + 1) * 1000));
  await page.waitForSelector("#pending-none", { timeout: slow });
  expect(await page.getAttribute("#live", "data-last-event")).toMatch(/^(action\.booked|wallet\.synced)$/);
  expect(documents).toBe(loads);
  expect(errors).toEqual([]);
}, 180_000);
