// Every route of the API, one file per resource (docs/api.md#routes-and-scopes). The order is the
// OpenAPI document's; the auth matcher prefers a path without parameters (/v1/wallets/sync) over
// one with (/v1/wallets/:owner), whatever the order.
import type { Route } from "../route.ts";
import { actionRoutes } from "./actions.ts";
import { assetRoutes } from "./assets.ts";
import { calendarRoutes } from "./calendar.ts";
import { eventRoutes } from "./events.ts";
import { exportRoutes } from "./export.ts";
import { healthRoutes } from "./health.ts";
import { incomeRoutes } from "./income.ts";
import { journalRoutes } from "./journal.ts";
import { lineageRoutes } from "./lineage.ts";
import { lotRoutes } from "./lots.ts";
import { mcpRoutes } from "./mcp.ts";
import { opsRoutes } from "./ops.ts";
import { portfolioRoutes } from "./portfolio.ts";
import { reportRoutes } from "./reports.ts";
import { taxonomyRoutes } from "./taxonomy.ts";
import { walletRoutes } from "./wallets.ts";
import { yieldRoutes } from "./yield.ts";

export const routes: readonly Route[] = [
  ...healthRoutes,
  ...assetRoutes,
  ...walletRoutes,
  ...portfolioRoutes,
  ...incomeRoutes,
  ...journalRoutes,
  ...yieldRoutes,
  ...exportRoutes,
  ...opsRoutes,
  ...taxonomyRoutes,
  ...actionRoutes,
  ...lineageRoutes,
  ...reportRoutes,
  ...lotRoutes,
  ...calendarRoutes,
  ...eventRoutes,
  ...mcpRoutes,
];
