// A loopback xStocks public API serving the recorded fixture rows, paged the way the public API
// pages (`?page=N&pageSize=P` → `{page:{...}, nodes}`), or by cursor, or not at all, with fault
// injection: 5xx/429 bursts, unreadable bodies, and a record edited without a new version.
import { readFixture } from "./chain";

export interface IssuerData {
  assets: any[];
  history: any[];
  upcoming: any[];
  multiplierHistory: Record<string, any[]>;
}

/** The recorded subset (13 symbols), deep-copied so a test can edit it freely. */
export function loadIssuerFixture(): IssuerData {
  const d = readFixture("xstocks/recorded-20260913-subset.json");
  return structuredClone({ assets: d.assets, history: d.history, upcoming: d.upcoming, multiplierHistory: d.multiplierHistory });
}

export type IssuerFault = { kind: "status"; status: number; retryAfter?: string } | { kind: "not_json" } | { kind: "hang"; ms: number };

export interface IssuerServerOptions {
  paging?: "page" | "cursor" | "none";
  /** Server-side cap on pageSize, like a real API's. */
  maxPageSize?: number;
}

export interface IssuerServer {
  url: string;
  stop(): void;
  readonly requests: number;
  log: string[];
  data: IssuerData;
  inject(rule: { fault: IssuerFault; times: number; path?: string }): void;
  /** Change fields of a stored record in place, keeping its (eventId, version). */
  editRecord(eventId: string, version: number, patch: Record<string, unknown>): void;
  /** Called after each request is answered (tests use it to move data mid-sweep). */
  onServed?: (path: string, count: number) => void;
}

export function startIssuerServer(data: IssuerData, options: IssuerServerOptions = {}): IssuerServer {
  const paging = options.paging ?? "page";
  const maxPageSize = options.maxPageSize ?? 100;
  const rules: { fault: IssuerFault; times: number; path?: string }[] = [];
  const log: string[] = [];

  function paged(rows: any[], params: URLSearchParams): unknown {
    const pageSize = Math.min(maxPageSize, Math.max(1, Number(params.get("pageSize") ?? 10)));
    if (paging === "none") return { nodes: rows };
    if (paging === "cursor") {
      const offset = params.get("cursor") ? Number(atob(params.get("cursor")!)) : 0;
      const nodes = rows.slice(offset, offset + pageSize);
      const next = offset + pageSize < rows.length ? btoa(String(offset + pageSize)) : null;
      return { nodes, nextCursor: next };
    }
    const page = Math.max(1, Number(params.get("page") ?? 1));
    const totalPages = Math.max(1, Math.ceil(rows.length / pageSize));
    return {
      page: { currentPage: page, pageSize, totalPages, totalNodes: rows.length, hasNextPage: page < totalPages, hasPreviousPage: page > 1 },
      nodes: rows.slice((page - 1) * pageSize, page * pageSize),
    };
  }

  function route(path: string, params: URLSearchParams): Response {
    const base = "/api/v2";
    if (!path.startsWith(base)) return Response.json({ message: "Not Found" }, { status: 404 });
    const p = path.slice(base.length);
    if (p === "/public/assets") return Response.json(paged(data.assets, params));
    if (p === "/public/corporate-actions/history") return Response.json(paged(data.history, params));
    if (p === "/public/corporate-actions/upcoming") return Response.json(paged(data.upcoming, params));
    const m = /^\/public\/assets\/([^/]+)\/multiplier\/history$/.exec(p);
    if (m) {
      if (params.get("network") !== "Solana") return Response.json({ message: "network is required" }, { status: 400 });
      const rows = data.multiplierHistory[decodeURIComponent(m[1]!)];
      if (!rows) return Response.json({ message: "Asset not found" }, { status: 404 });
      return Response.json(paging === "none" ? rows : { nodes: rows });
    }
    return Response.json({ message: "Not Found" }, { status: 404 });
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      log.push(`${url.pathname}${url.search}`);
      const rule = rules.find((r) => r.times > 0 && (!r.path || url.pathname.endsWith(r.path)));
      let res: Response;
      if (rule) {
        rule.times--;
        const f = rule.fault;
        if (f.kind === "hang") {
          await Bun.sleep(f.ms);
          res = route(url.pathname, url.searchParams);
        } else if (f.kind === "not_json") {
          res = new Response('{"nodes": [', { headers: { "content-type": "application/json" } });
        } else {
          res = new Response("busy", { status: f.status, headers: f.retryAfter ? { "retry-after": f.retryAfter } : {} });
        }
      } else {
        res = route(url.pathname, url.searchParams);
      }
      handle.onServed?.(url.pathname, log.length);
      return res;
    },
  });

  const handle: IssuerServer = {
    url: `http://127.0.0.1:${server.port}/api/v2`,
    stop: () => server.stop(true),
    get requests() {
      return log.length;
    },
    log,
    data,
    inject: (rule) => rules.push(rule),
    editRecord(eventId, version, patch) {
      for (const list of [data.history, data.upcoming]) {
        for (const r of list) if (r.eventId === eventId && r.version === version) Object.assign(r, patch);
      }
    },
  };
  return handle;
}
