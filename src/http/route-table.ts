// Every route with the scope it needs (docs/api.md#routes-and-scopes). Auth runs in onRequest, before body
// parsing and validation (docs/api.md#check-order), so it matches paths against this table itself;
// a test checks the table and the registered routes agree.
import type { Scope } from "../ledger/keys.ts";

export interface RouteSpec { method: "GET" | "POST" | "DELETE"; template: string; scope: Scope | null }

export const routeTable: RouteSpec[] = [
  { method: "GET", template: "/v1/health", scope: null },
  { method: "GET", template: "/v1/openapi.json", scope: null },
  { method: "GET", template: "/v1/assets", scope: "assets:read" },
  { method: "POST", template: "/v1/wallets/sync", scope: "wallets:sync" },
  { method: "GET", template: "/v1/wallets", scope: "ledger:read" },
  { method: "GET", template: "/v1/wallets/:owner/status", scope: "ledger:read" },
  // After /v1/wallets/sync: a path matches the first template that fits.
  { method: "DELETE", template: "/v1/wallets/:owner", scope: "wallets:sync" },
  { method: "GET", template: "/v1/portfolio", scope: "ledger:read" },
  { method: "GET", template: "/v1/income", scope: "ledger:read" },
  { method: "GET", template: "/v1/income/:id", scope: "ledger:read" },
  { method: "GET", template: "/v1/journal", scope: "ledger:read" },
  { method: "GET", template: "/v1/yield", scope: "ledger:read" },
  { method: "GET", template: "/v1/export", scope: "ledger:read" },
  { method: "GET", template: "/v1/ops/status", scope: "ops:read" },
  { method: "GET", template: "/v1/ops/metrics", scope: "ops:read" },
  { method: "GET", template: "/v2/taxonomy", scope: "assets:read" },
  { method: "GET", template: "/v2/actions", scope: "ledger:read" },
  { method: "GET", template: "/v2/actions/:id", scope: "ledger:read" },
  { method: "GET", template: "/v2/instruments/:mint/lineage", scope: "assets:read" },
  { method: "GET", template: "/v2/reports/income", scope: "ledger:read" },
  { method: "GET", template: "/v2/reports/currencies", scope: "ledger:read" },
];

interface Compiled { re: RegExp; specs: RouteSpec[]; template: string }

const compiled: Compiled[] = (() => {
  const byTemplate = new Map<string, RouteSpec[]>();
  for (const r of routeTable) byTemplate.set(r.template, [...(byTemplate.get(r.template) ?? []), r]);
  return [...byTemplate.entries()].map(([template, specs]) => ({
    template,
    specs,
    re: new RegExp("^" + template.replace(/\./g, "\\.").replace(/:[a-z]+/g, "[^/]+") + "/?$"),
  }));
})();

export type RouteMatch = { kind: "route"; spec: RouteSpec } | { kind: "method_not_allowed"; template: string; allow: string[] } | { kind: "none" };

export function matchRoute(method: string, path: string): RouteMatch {
  for (const c of compiled) {
    if (!c.re.test(path)) continue;
    const m = method === "HEAD" ? "GET" : method;
    const spec = c.specs.find((s) => s.method === m);
    if (spec) return { kind: "route", spec };
    return { kind: "method_not_allowed", template: c.template, allow: c.specs.map((s) => s.method) };
  }
  return { kind: "none" };
}
