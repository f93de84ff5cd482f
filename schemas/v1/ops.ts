import { Type } from "@sinclair/typebox";
import { DatasetLabel, Timestamp, describe, literals } from "../common.ts";

export const Health = Type.Object(
  {
    status: Type.Literal("ok", { description: "Always ok: the server answers and can read its database (otherwise 503)" }),
    version: Type.String({ description: "Version of the running ca-ledger" }),
    dataset: Type.Union([DatasetLabel, Type.Null()], { description: "The dataset label; null before one is written" }),
  },
  { title: "Health", description: "Liveness and the dataset label", examples: [{ status: "ok", version: "0.1.0", dataset: { kind: "synthetic", description: "Embedded demo" } }] },
);

export const CheckStatus = literals(["ok", "warn", "critical"], { title: "CheckStatus", description: "ok: nothing to do; warn: look soon; critical: act now" });
export const OpsCheck = Type.Object(
  {
    name: Type.String({ description: "What is checked: database, sync queue draining, failed syncs, issuer feed freshness, mint poll freshness, RPC errors" }),
    status: describe(CheckStatus, "This check's verdict"),
    value: Type.Union([Type.Number(), Type.String(), Type.Null()], { description: "The measured value (a count, an age in seconds, a ratio); null when there is nothing to measure yet" }),
    threshold: Type.Union([Type.Number(), Type.String(), Type.Null()], { description: "The value at which the check stops being ok; null when the check has none" }),
    message: Type.String({ description: "A sentence for the operator saying what was found" }),
  },
  { title: "OpsCheck", description: "One named operational check" },
);
export const OpsStatus = Type.Object(
  {
    status: describe(CheckStatus, "The worst status of all checks"),
    checkedAt: describe(Timestamp, "When the checks ran"),
    checks: Type.Array(OpsCheck, { description: "Every check, in a fixed order; none names a tenant or a wallet" }),
  },
  { title: "OpsStatus", description: "Operational status with named checks" },
);

export const MetricsText = Type.String({ title: "MetricsText", description: "Prometheus text format 0.0.4" });
/** The answer of GET /v1/openapi.json. */
export const OpenApiDocument = Type.Object({}, { title: "OpenApiDocument", description: "This OpenAPI 3.1 document", additionalProperties: true });
