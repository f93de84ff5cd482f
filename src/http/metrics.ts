// Prometheus text 0.0.4. Labels carry route templates, never raw paths, owners or keys.
// A method label is one of the HTTP methods or `other`: a client can send any token as a method.
const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
const buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** What the ledger holds now, read for each scrape (src/ledger/queries/ops.ts). */
export interface Gauges {
  syncJobs: Record<string, number>;
  issuerRecords: number;
  actionsByType: Record<string, number>;
  /** How long the oldest undelivered webhook delivery has been due (0 when none waits). */
  webhookQueueAgeSeconds: number;
}

/** What a webhook delivery attempt came to (src/events/delivery-store.ts OutcomeKind). */
const webhookOutcomes = ["delivered", "retry", "failed"] as const;

/** What this process is: the build_info series' labels. */
export interface BuildInfo {
  version: string;
  engine: "sqlite" | "postgres";
}

/** The requests of one method and route: their count by status, and their durations' histogram. */
interface Series {
  method: string;
  route: string;
  byStatus: Map<number, RequestCount>;
  counts: number[];
  sum: number;
  count: number;
}
interface RequestCount {
  method: string;
  route: string;
  status: number;
  n: number;
}

export function createMetrics(build: BuildInfo, startedAt = Date.now()) {
  // Found by route, then method, then status: no key is built per request. The lists keep the
  // order each was first seen in, which is the order they are rendered in.
  const seriesBy = new Map<string, Map<string, Series>>();
  const series: Series[] = [];
  const requests: RequestCount[] = [];
  const authFailures = new Map<string, number>();
  const rpc = new Map<string, number>();
  const webhooks = new Map<string, number>(webhookOutcomes.map((o) => [o, 0]));
  let rateLimited = 0;
  let hostRefused = 0;

  const inc = (m: Map<string, number>, k: string, by = 1) => m.set(k, (m.get(k) ?? 0) + by);

  return {
    observeRequest(rawMethod: string, route: string, status: number, seconds: number): void {
      const method = knownMethods.has(rawMethod) ? rawMethod : "other";
      let methods = seriesBy.get(route);
      if (!methods) seriesBy.set(route, (methods = new Map()));
      let s = methods.get(method);
      if (!s) methods.set(method, (s = { method, route, byStatus: new Map(), counts: buckets.map(() => 0), sum: 0, count: 0 })), series.push(s);
      let c = s.byStatus.get(status);
      if (!c) s.byStatus.set(status, (c = { method, route, status, n: 0 })), requests.push(c);
      c.n++;
      // Counted in the first bucket it fits, cumulated when rendered; past the last, only in +Inf.
      let i = 0;
      while (i < buckets.length && seconds > buckets[i]!) i++;
      if (i < buckets.length) s.counts[i]!++;
      s.sum += seconds;
      s.count++;
    },
    authFailure(reason: string): void {
      inc(authFailures, reason);
    },
    rateLimited(): void {
      rateLimited++;
    },
    hostRefused(): void {
      hostRefused++;
    },
    rpcRequest(method: string, outcome: string, n = 1): void {
      inc(rpc, `${method}\u0000${outcome}`, n);
    },
    /** Webhook delivery attempts by outcome, as the worker thread reports them. */
    webhookAttempts(outcome: (typeof webhookOutcomes)[number], n = 1): void {
      inc(webhooks, outcome, n);
    },
    rpcErrorCounts(): { errors: number; total: number } {
      let errors = 0,
        total = 0;
      for (const [k, v] of rpc) {
        total += v;
        if (!k.endsWith("\u0000ok")) errors += v;
      }
      return { errors, total };
    },
    render(g: Gauges): string {
      const out: string[] = [];
      const esc = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
      const head = (name: string, type: string, help: string) => out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);

      // The usual info-metric shape: always 1, the facts in its labels (joined onto other series in queries).
      head("caledger_build_info", "gauge", "The running ca-ledger: its version and its ledger's database engine (always 1).");
      out.push(`caledger_build_info{version="${esc(build.version)}",engine="${build.engine}"} 1`);

      head("caledger_http_requests_total", "counter", "HTTP requests by method, route template and status.");
      for (const c of requests) out.push(`caledger_http_requests_total{method="${esc(c.method)}",route="${esc(c.route)}",status="${c.status}"} ${c.n}`);
      head("caledger_http_request_duration_seconds", "histogram", "HTTP request duration by method and route template.");
      for (const h of series) {
        const l = `method="${esc(h.method)}",route="${esc(h.route)}"`;
        let cumulative = 0;
        buckets.forEach((b, i) => out.push(`caledger_http_request_duration_seconds_bucket{${l},le="${b}"} ${(cumulative += h.counts[i]!)}`));
        out.push(`caledger_http_request_duration_seconds_bucket{${l},le="+Inf"} ${h.count}`);
        out.push(`caledger_http_request_duration_seconds_sum{${l}} ${h.sum}`);
        out.push(`caledger_http_request_duration_seconds_count{${l}} ${h.count}`);
      }
      head("caledger_auth_failures_total", "counter", "Refused authentication attempts by reason.");
      for (const [k, v] of authFailures) out.push(`caledger_auth_failures_total{reason="${esc(k)}"} ${v}`);
      head("caledger_rate_limited_total", "counter", "Requests refused by the per-key rate limit.");
      out.push(`caledger_rate_limited_total ${rateLimited}`);
      head("caledger_host_refused_total", "counter", "Requests refused because their Host header names no host this server answers to (421 host_not_allowed).");
      out.push(`caledger_host_refused_total ${hostRefused}`);
      head("caledger_sync_jobs", "gauge", "Sync jobs by state.");
      for (const [k, v] of Object.entries(g.syncJobs)) out.push(`caledger_sync_jobs{state="${esc(k)}"} ${v}`);
      head("caledger_rpc_requests_total", "counter", "Solana RPC requests by method and outcome.");
      for (const [k, v] of rpc) {
        const [m, o] = k.split("\u0000");
        out.push(`caledger_rpc_requests_total{method="${esc(m!)}",outcome="${esc(o!)}"} ${v}`);
      }
      head("caledger_issuer_records", "gauge", "Issuer corporate-action revisions stored.");
      out.push(`caledger_issuer_records ${g.issuerRecords}`);
      head("caledger_actions", "gauge", "Booked corporate actions by type.");
      for (const [k, v] of Object.entries(g.actionsByType)) out.push(`caledger_actions{type="${esc(k)}"} ${v}`);
      head("caledger_webhook_deliveries_total", "counter", "Webhook delivery attempts by outcome: delivered (a 2xx), retry (failed, tried again later), failed (given up).");
      for (const [k, v] of webhooks) out.push(`caledger_webhook_deliveries_total{outcome="${k}"} ${v}`);
      head("caledger_webhook_queue_age_seconds", "gauge", "Seconds the oldest undelivered webhook delivery has been due (0 when none waits).");
      out.push(`caledger_webhook_queue_age_seconds ${g.webhookQueueAgeSeconds}`);
      const mem = process.memoryUsage();
      head("caledger_process_resident_memory_bytes", "gauge", "Resident memory of the process.");
      out.push(`caledger_process_resident_memory_bytes ${mem.rss}`);
      head("caledger_process_heap_used_bytes", "gauge", "JavaScript heap in use.");
      out.push(`caledger_process_heap_used_bytes ${mem.heapUsed}`);
      head("caledger_process_uptime_seconds", "gauge", "Seconds since the process started.");
      out.push(`caledger_process_uptime_seconds ${((Date.now() - startedAt) / 1000).toFixed(3)}`);
      return out.join("\n") + "\n";
    },
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
