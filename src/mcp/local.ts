// `ca-ledger mcp` on a ledger this process opens (docs/mcp.md#over-stdio): the declared routes'
// handlers run here for the key's principal, with the same context the server gives them, so a
// tool answers exactly what the route answers. The key is read again on every call: a key
// revoked meanwhile stops at its next call.
import type { Config } from "../config.ts";
import { demoOwners } from "../demo/identity.ts";
import { routeContext } from "../http/app.ts";
import { createMetrics } from "../http/metrics.ts";
import { routes } from "../http/routes/index.ts";
import type { Ledger } from "../ledger/db.ts";
import { watchDatabase } from "../ledger/health.ts";
import { keyById, keyLookup } from "../ledger/keys.ts";
import { datasetLabelOrDefault } from "../ledger/queries/common.ts";
import { createLogger } from "../log.ts";
import { version } from "../version.ts";
import { localRunner, routeMcpService } from "./route-tools.ts";
import { serveMcpStdio, type StdioOptions } from "./stdio.ts";

/** Serves one client over stdio until it closes stdin or `signal` fires; "invalid_key" when the key opens nothing here. */
export async function serveLedger(ledger: Ledger, config: Config, apiKey: string, signal?: AbortSignal, io: Omit<StdioOptions, "signal"> = {}): Promise<"served" | "invalid_key"> {
  const principal = await keyLookup(ledger.db)(apiKey);
  if (!principal) return "invalid_key";
  const logger = createLogger(config.logLevel);
  const health = watchDatabase(ledger, { logger });
  // The demo's ledger answers a sync of another wallet as the demo server does (demo_offline).
  const demo = (await datasetLabelOrDefault(ledger.db)).kind === "synthetic";
  const context = await routeContext({ ledger, config, logger, version, demoOwners: demo ? demoOwners() : undefined }, createMetrics({ version, engine: ledger.engine }), health);
  const byId = keyById(ledger.db);
  const service = routeMcpService(
    routes,
    localRunner(context, (p) => byId(p.keyId)),
    { version, logger },
  );
  await serveMcpStdio(service, principal, { ...io, signal });
  return "served";
}
