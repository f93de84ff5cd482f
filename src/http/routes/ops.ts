// The operator's routes: status checks and Prometheus metrics (no tenant or wallet data).
import * as S from "../../../schemas/index.ts";
import { issuerFeedOff } from "../../config.ts";
import { opsStatus, readGauges } from "../../ledger/queries/ops.ts";
import { route, Serialized } from "../route.ts";

export const opsRoutes = [
  route({
    method: "GET",
    path: "/v1/ops/status",
    scope: "ops:read",
    databaseFree: true,
    response: { 200: S.OpsStatus },
    tag: "ops",
    summary: "Operator status checks (no tenant or wallet data)",
    handler: (_, app) =>
      opsStatus(app.ledger.db, {
        issuerPollSeconds: app.config.issuerPollSeconds,
        mintPollSeconds: app.config.mintPollSeconds,
        jobDeadlineSeconds: app.config.jobDeadlineSeconds,
        rpcErrors: () => app.metrics.rpcErrorCounts(),
        database: app.health,
        issuerFeedOff: issuerFeedOff(app.config),
      }),
  }),
  route({
    method: "GET",
    path: "/v1/ops/metrics",
    scope: "ops:read",
    databaseFree: true,
    response: { 200: S.MetricsText },
    tag: "ops",
    summary: "Prometheus metrics",
    handler: async (_, app) => new Serialized(app.metrics.render(await readGauges(app.ledger.db)), "text/plain; version=0.0.4; charset=utf-8"),
  }),
];
