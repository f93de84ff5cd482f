// Evidence hashing: RFC 8785 (JSON Canonicalization Scheme) + SHA-256. node:crypto's hash does
// no I/O, so the domain stays pure while anyone can recompute a hash from the stored payload.
import { createHash } from "node:crypto";

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json | undefined };

/** RFC 8785 canonical JSON: keys sorted by UTF-16 code units, ES number form, no whitespace. */
export function canonicalJson(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new TypeError("non-finite number in canonical JSON");
      // ES Number-to-string is the number form RFC 8785 prescribes.
      return JSON.stringify(value);
    case "string":
      return JSON.stringify(value);
    case "bigint":
      throw new TypeError("bigint in canonical JSON: encode it as a decimal string first");
    case "object": {
      if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`;
      const obj = value as Record<string, unknown>;
      // Plain sort() compares UTF-16 code units, exactly what RFC 8785 §3.2.3 asks.
      const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
      return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
    }
    default:
      throw new TypeError(`cannot encode ${typeof value} in canonical JSON`);
  }
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export const canonicalSha256 = (value: unknown): string => sha256Hex(canonicalJson(value));
