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
    case "object":
      return Array.isArray(value) ? arrayJson(value) : objectJson(value as Record<string, unknown>);
    default:
      throw new TypeError(`cannot encode ${typeof value} in canonical JSON`);
  }
}

// Plain loops and string appends: this runs for every action of every wallet, and the chained
// filter/sort/map/join version spent most of its time building intermediate arrays.
function arrayJson(xs: unknown[]): string {
  let out = "[";
  for (let i = 0; i < xs.length; i++) {
    const v = xs[i];
    if (i > 0) out += ",";
    out += canonicalJson(v === undefined ? null : v);
  }
  return `${out}]`;
}

function objectJson(obj: Record<string, unknown>): string {
  // Plain sort() compares UTF-16 code units, exactly what RFC 8785 §3.2.3 asks.
  const keys = Object.keys(obj).sort();
  let out = "{";
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    if (!first) out += ",";
    out += `${JSON.stringify(k)}:${canonicalJson(v)}`;
    first = false;
  }
  return `${out}}`;
}

// Bun's one-shot SHA-256 gives the same digest of the same UTF-8 bytes at about half the cost
// of a node:crypto Hash object, and the engine hashes twice per action; elsewhere node:crypto.
const bunSha256 = (globalThis as { Bun?: { SHA256: { hash(text: string, encoding: "hex"): string } } }).Bun?.SHA256;

export function sha256Hex(text: string): string {
  if (bunSha256) return bunSha256.hash(text, "hex");
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export const canonicalSha256 = (value: unknown): string => sha256Hex(canonicalJson(value));
