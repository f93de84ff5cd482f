// The request metrics agree with the observations they count, whatever their order: each
// series' counter by status, its histogram's cumulative buckets (an observation is in every
// bucket whose bound it does not exceed), +Inf, count and sum; series in the order first seen.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createMetrics } from "../../src/http/metrics.ts";

const bounds = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const gauges = { syncJobs: {}, issuerRecords: 0, actionsByType: {}, webhookQueueAgeSeconds: 0 };
const observation = fc.record({
  method: fc.constantFrom("GET", "POST", "DELETE", "BREW"),
  route: fc.constantFrom("/v1/portfolio", "/v1/wallets/:owner", "unmatched", "/ui"),
  status: fc.constantFrom(200, 202, 400, 401, 404, 429, 503),
  // Bounds themselves included: `le` is inclusive.
  seconds: fc.oneof(fc.constantFrom(0, ...bounds, 3), fc.double({ min: 0, max: 5, noNaN: true })),
});

describe("request metrics", () => {
  test("count each series by status and cumulate its durations into the buckets, in the order first seen", () => {
    fc.assert(
      fc.property(fc.array(observation, { maxLength: 60 }), (seen) => {
        const metrics = createMetrics({ version: "test", engine: "sqlite" });
        for (const o of seen) metrics.observeRequest(o.method, o.route, o.status, o.seconds);
        const lines = metrics.render(gauges).split("\n");
        const method = (m: string) => (m === "BREW" ? "other" : m);

        const counters = lines.filter((l) => l.startsWith("caledger_http_requests_total{"));
        const expectedCounters: string[] = [];
        const tally = new Map<string, number>();
        for (const o of seen) {
          const labels = `method="${method(o.method)}",route="${o.route}",status="${o.status}"`;
          if (!tally.has(labels)) expectedCounters.push(labels);
          tally.set(labels, (tally.get(labels) ?? 0) + 1);
        }
        expect(counters).toEqual(expectedCounters.map((l) => `caledger_http_requests_total{${l}} ${tally.get(l)}`));

        const series: string[] = [];
        for (const o of seen) if (!series.includes(`${method(o.method)} ${o.route}`)) series.push(`${method(o.method)} ${o.route}`);
        const expectedHistograms = series.flatMap((s) => {
          const [m, r] = s.split(" ");
          const mine = seen.filter((o) => method(o.method) === m && o.route === r);
          const l = `method="${m}",route="${r}"`;
          return [
            ...bounds.map((b) => `caledger_http_request_duration_seconds_bucket{${l},le="${b}"} ${mine.filter((o) => o.seconds <= b).length}`),
            `caledger_http_request_duration_seconds_bucket{${l},le="+Inf"} ${mine.length}`,
            `caledger_http_request_duration_seconds_sum{${l}} ${mine.reduce((a, o) => a + o.seconds, 0)}`,
            `caledger_http_request_duration_seconds_count{${l}} ${mine.length}`,
          ];
        });
        expect(lines.filter((l) => l.startsWith("caledger_http_request_duration_seconds_"))).toEqual(expectedHistograms);
      }),
      { numRuns: 300 },
    );
  });
});
