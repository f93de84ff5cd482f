// `ca-ledger calendar-url --tenant <slug> [--base-url URL] [--revoke] [--json]` (docs/cli.md#calendar-url):
// prints a read-only iCalendar URL of the tenant's pending actions for calendar apps; the token
// in it is its only credential, shown once. --revoke ends every calendar URL of the tenant.
import { defineCommand } from "citty";
import { CalendarTokenError, createCalendarToken, revokeCalendarTokens } from "../src/ledger/calendar.ts";
import { configFrom, fail, openExisting, settingArgs } from "./common.ts";

/** Where the server is reached: --base-url, else the address `serve` binds with these settings. */
function baseUrl(given: unknown, config: { host: string; port: number }): string {
  if (typeof given === "string") {
    let u: URL;
    try {
      u = new URL(given);
    } catch {
      return fail("--base-url must be an http(s) URL such as https://ledger.example.com", 2);
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") fail("--base-url must be an http(s) URL such as https://ledger.example.com", 2);
    return given.replace(/\/+$/, "");
  }
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}

export const calendarUrlCommand = defineCommand({
  meta: { name: "calendar-url", description: "Print a read-only iCalendar URL of a tenant's pending actions (the token is its only credential), or revoke them all" },
  args: {
    tenant: { type: "string", required: true, description: "Tenant slug" },
    "base-url": { type: "string", valueHint: "url", description: "How calendar apps reach the server (default: http://HOST:PORT from the settings)" },
    revoke: { type: "boolean", description: "Revoke every calendar URL of the tenant instead" },
    json: { type: "boolean", description: "Print JSON" },
    ...settingArgs("calendar-url"),
  },
  async run({ args }) {
    const config = configFrom(args);
    const base = args.revoke ? "" : baseUrl(args["base-url"], config);
    const ledger = await openExisting(args, { migrate: true });
    try {
      if (args.revoke) {
        const revoked = await revokeCalendarTokens(ledger.db, String(args.tenant));
        if (args.json) return void process.stdout.write(JSON.stringify({ tenant: args.tenant, revoked }) + "\n");
        return void process.stdout.write(`Revoked ${revoked} calendar URL${revoked === 1 ? "" : "s"} of tenant ${args.tenant}.\n`);
      }
      const token = await createCalendarToken(ledger.db, String(args.tenant));
      const url = `${base}/v2/calendar/${token}.ics`;
      if (args.json) return void process.stdout.write(JSON.stringify({ tenant: args.tenant, url }) + "\n");
      process.stdout.write(`${url}\nRead-only; anyone with this URL reads the tenant's pending actions. Shown once; revoke with: ca-ledger calendar-url --tenant ${args.tenant} --revoke\n`);
    } catch (e) {
      if (e instanceof CalendarTokenError) fail(e.message, 1);
      throw e;
    } finally {
      await ledger.close();
    }
  },
});
