// Elysia coerces query strings to numbers only for its own `t.Integer`; the shared schemas are
// plain TypeBox (so the client carries no server framework). This rebuilds a query schema's
// integer properties with `t.Integer` and the same constraints, so both stay one definition.
import { t } from "elysia";
import { Kind, OptionalKind, type TObject, type TSchema } from "@sinclair/typebox";
import { dateRange, type DateFilter, type DateRange } from "../domain/date-range.ts";
import { ApiFailure } from "./errors.ts";

export function coercedQuery<T extends TObject>(schema: T): T {
  const properties: Record<string, TSchema> = {};
  for (const [name, prop] of Object.entries(schema.properties) as [string, TSchema][]) {
    if (prop[Kind] !== "Integer") {
      properties[name] = prop;
      continue;
    }
    const { type: _type, ...constraints } = JSON.parse(JSON.stringify(prop)) as Record<string, unknown>; // symbols drop out
    const integer = t.Integer(constraints);
    properties[name] = OptionalKind in prop ? t.Optional(integer) : integer;
  }
  const { type: _t, properties: _p, required: _r, ...options } = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return t.Object(properties, options) as unknown as T;
}

/** What every date-filtered route says of its filters (in the OpenAPI document). */
export const DATE_FILTERS =
  "Filter by effectiveAt with from and to (YYYY-MM-DD, UTC, both days included) or year; total and nextOffset count what the filter keeps. year with from or to, an impossible day, or from after to is 400 invalid_request.";

/** The date range a query's `from`/`to`/`year` ask for; 400 invalid_request naming the parameter otherwise. */
export function dateRangeOf(query: DateFilter): DateRange {
  const r = dateRange(query);
  if (!r.ok) throw new ApiFailure("invalid_request", r.message);
  return r.range;
}
