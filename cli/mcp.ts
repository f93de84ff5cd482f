// `ca-ledger mcp`: the Model Context Protocol over stdin and stdout for a desktop agent
// (docs/mcp.md#over-stdio). The key comes from CA_LEDGER_API_KEY only (a flag would show in the
// process list and the client's settings). The ledger is read directly (the data dir, --demo or
// DATABASE_URL: each tool runs its route's handler here, as that key) or through a running
// server (--url: each tool call is the route's own HTTP request with the key).
import { defineCommand } from "citty";
import { configFrom, fail, openExisting, sayIfNew, settingArgs } from "./common.ts";

export const mcpCommand = defineCommand({
  meta: { name: "mcp", description: "Serve the ledger to a desktop agent over the Model Context Protocol on stdin/stdout; the key from CA_LEDGER_API_KEY" },
  args: {
    ...settingArgs("mcp"),
    url: { type: "string", valueHint: "url", description: "Read a running ca-ledger server at this base URL (http://host:4600) instead of the ledger here; the server checks the key on every call" },
  },
  async run({ args }) {
    const a = args as Record<string, unknown>;
    const apiKey = process.env.CA_LEDGER_API_KEY?.trim();
    if (!apiKey) fail("mcp reads the API key from the environment variable CA_LEDGER_API_KEY (never from a flag); set it to a key made with 'ca-ledger keys create'", 2);
    const url = typeof a.url === "string" ? a.url : undefined;
    if (url !== undefined && (a.demo === true || a["data-dir"] !== undefined || a["database-url"] !== undefined)) {
      fail("--url reads a running server: it takes no --data-dir, --demo or --database-url", 2);
    }
    if (url !== undefined && (!/^https?:\/\/[^/]/i.test(url) || !URL.canParse(url))) fail("--url must be an http:// or https:// URL of a ca-ledger server", 2);
    const stop = new AbortController();
    process.once("SIGINT", () => stop.abort());
    process.once("SIGTERM", () => stop.abort());
    const { serveMcpStdio } = await import("../src/mcp/stdio.ts");
    if (url !== undefined) {
      const { routeMcpService, remoteRunner } = await import("../src/mcp/route-tools.ts");
      const { routes } = await import("../src/http/routes/index.ts");
      const { allScopes } = await import("../src/domain/scopes.ts");
      const { version } = await import("../src/version.ts");
      // The key's scopes and tenant are the server's to know: every tool is listed, and the server refuses what the key may not do.
      const service = routeMcpService(routes, remoteRunner({ baseUrl: url }), { version });
      await serveMcpStdio(service, { tenant: "(the server's)", scopes: allScopes, apiKey }, { signal: stop.signal });
      process.exit(0);
    }
    const config = configFrom(a);
    if (a.demo === true) await sayIfNew(config, a); // no demo yet: exit 1, saying to start it
    const ledger = await openExisting(a);
    const { serveLedger } = await import("../src/mcp/local.ts");
    let served: Awaited<ReturnType<typeof serveLedger>>;
    try {
      served = await serveLedger(ledger, config, apiKey, stop.signal);
    } finally {
      await ledger.close();
    }
    if (served === "invalid_key") fail("the API key in CA_LEDGER_API_KEY is unknown, malformed or revoked for this ledger", 1);
    process.exit(0);
  },
});
