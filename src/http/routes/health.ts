// Liveness and this API's own document: the two routes that take no key and read no ledger data.
import * as S from "../../../schemas/index.ts";
import { ApiFailure } from "../errors.ts";
import { route } from "../route.ts";

export const healthRoutes = [
  route({
    method: "GET",
    path: "/v1/health",
    scope: null,
    databaseFree: true,
    response: { 200: S.Health, 503: S.errors[503] },
    tag: "ops",
    summary: "Liveness and the dataset label (no key)",
    handler: (_, app) => {
      const fault = app.health.check();
      if (fault) throw new ApiFailure("unavailable", `The ledger database cannot be trusted: ${fault.message}.`, { "retry-after": "60" });
      return { status: "ok" as const, version: app.version, dataset: app.dataset };
    },
  }),
  route({
    method: "GET",
    path: "/v1/openapi.json",
    scope: null,
    databaseFree: true,
    response: { 200: S.OpenApiDocument },
    tag: "ops",
    summary: "This OpenAPI 3.1 document (no key)",
    handler: (_, app) => app.openapiDocument(),
  }),
];
