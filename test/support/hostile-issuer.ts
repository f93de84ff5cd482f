// An xStocks public API whose corporate-action history never seems to end: page after page of
// valid records (the recorded rows, each copy under a new eventId), each page far larger than
// asked for, in the real wire format (`{page:{…, hasNextPage}, nodes}`). The asset list and the
// upcoming list are the recorded ones. Bodies stream in chunks as the client pulls them, and the
// server counts what it produced, so a test can see where the client stopped reading.
import type { IssuerData } from "./issuer-server";

export interface HostileIssuer {
  url: string;
  /** Bytes of history pages the client pulled so far. */
  sentBytes(): number;
  /** History pages requested so far. */
  pagesServed(): number;
  stop(): void;
}

export function hostileHistoryServer(data: IssuerData, opts: { pageBytes: number; pages: number }): HostileIssuer {
  // One page's nodes, written once with a placeholder in each eventId; each page fills in its number.
  const nodes: string[] = [];
  let size = 0;
  for (let i = 0; size < opts.pageBytes; i++) {
    const row = JSON.stringify({ ...data.history[i % data.history.length], eventId: `hostile-@@PAGE@@-${i}` });
    nodes.push(row);
    size += row.length + 1;
  }
  const template = nodes.join(",");
  const encoder = new TextEncoder();
  let sent = 0;
  let served = 0;

  const wrap = (rows: unknown[]) => Response.json({ page: { currentPage: 1, pageSize: rows.length, totalPages: 1, totalNodes: rows.length, hasNextPage: false, hasPreviousPage: false }, nodes: rows });
  const historyPage = (page: number): Response => {
    served++;
    const info = { currentPage: page, pageSize: nodes.length, totalPages: opts.pages, totalNodes: nodes.length * opts.pages, hasNextPage: page < opts.pages, hasPreviousPage: page > 1 };
    const body = encoder.encode(`{"page":${JSON.stringify(info)},"nodes":[${template.replaceAll("@@PAGE@@", String(page))}]}`);
    let at = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (at >= body.length) return c.close();
        const chunk = body.subarray(at, at + 64 * 1024);
        at += chunk.length;
        sent += chunk.length;
        c.enqueue(chunk);
      },
    });
    return new Response(stream, { headers: { "content-type": "application/json" } });
  };

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    fetch(req) {
      const url = new URL(req.url);
      const path = url.pathname.replace(/^\/api\/v2/, "");
      if (path === "/public/assets") return wrap(data.assets);
      if (path === "/public/corporate-actions/upcoming") return wrap(data.upcoming);
      if (path === "/public/corporate-actions/history") return historyPage(Math.max(1, Number(url.searchParams.get("page") ?? 1)));
      return Response.json({ message: "Not Found" }, { status: 404 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/api/v2`,
    sentBytes: () => sent,
    pagesServed: () => served,
    stop: () => server.stop(true),
  };
}
