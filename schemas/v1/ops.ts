import { Type } from "@sinclair/typebox";
import { DatasetLabel, Timestamp } from "../common.ts";

export const Health = Type.Object(
  { status: Type.Literal("ok"), version: Type.String(), dataset: Type.Union([DatasetLabel, Type.Null()]) },
  { examples: [{ status: "ok", version: "0.1.0", dataset: { kind: "synthetic", description: "Embedded demo" } }] },
);

const CheckStatus = Type.Union([Type.Literal("ok"), Type.Literal("warn"), Type.Literal("critical")]);
export const OpsStatus = Type.Object({
  status: CheckStatus,
  checkedAt: Timestamp,
  checks: Type.Array(
    Type.Object({
      name: Type.String(),
      status: CheckStatus,
      value: Type.Union([Type.Number(), Type.String(), Type.Null()]),
      threshold: Type.Union([Type.Number(), Type.String(), Type.Null()]),
      message: Type.String(),
    }),
  ),
});

export const MetricsText = Type.String({ description: "Prometheus text format 0.0.4" });
