// The income breakdown rule (src/domain/cash.ts), one recorded issuer record per clause:
// gross, withholding tax, retention and net a share, exact, with null where the issuer's figures
// do not establish a part.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { publishedRetention, readCash } from "../../src/domain/cash";
import { add, formatExact, parseDecimal, type Rat } from "../../src/domain/numbers";
import type { IssuerRecord } from "../../src/domain/observations";
import { revision } from "./helpers";
import { recordedSymbols } from "./recorded";

const records = recordedSymbols().flatMap((s) => s.revisions.map((r) => r.record));
function record(symbol: string, effective: string, version?: number): IssuerRecord {
  const r = records.find((x) => x.xstockSymbol === symbol && x.effectiveTimeUtc?.startsWith(effective) && (version === undefined || x.version === version));
  if (!r) throw new Error(`no ${symbol} record effective ${effective}`);
  return r;
}
const show = (r: Rat | null) => (r === null ? null : formatExact(r));
function breakdown(r: IssuerRecord) {
  const warnings: string[] = [];
  const c = readCash(revision(r), warnings);
  return { gross: show(c.gross), withholding: show(c.withholding), retained: show(c.retained), net: show(c.net), taxRate: show(c.withholdingTaxRate), retentionRate: show(c.retentionRate), warnings };
}

describe("the cash a share, split for a tax return", () => {
  test("a plain dividend: 30% tax, nothing retained (SPYx 2026-06-18)", () => {
    expect(breakdown(record("SPYx", "2026-06-18"))).toEqual({ gross: "1.903516", withholding: "0.5710548", retained: "0", net: "1.3324612", taxRate: "0.3", retentionRate: null, warnings: [] });
  });

  test("a retention published in the notes, with the same 5% in the tax field, is a retention and no tax (LINx 2026-06-04)", () => {
    expect(breakdown(record("LINx", "2026-06-04"))).toEqual({ gross: "1.6", withholding: "0", retained: "0.08", net: "1.52", taxRate: "0", retentionRate: "0.05", warnings: [] });
  });

  test("a gap between gross × (1 − rate) and net is counted as tax, said in a warning, never a retention (NVOx 2025-08-26)", () => {
    const b = breakdown(record("NVOx", "2025-08-26"));
    expect([b.withholding, b.retained, b.retentionRate]).toEqual(["0.1232128", "0", null]);
    expect(b.warnings).toEqual(["issuer net $0.288341 a share is not gross less the published withholding and retention: the difference of -$0.000253 a share is counted as withholding tax"]);
  });

  test("a refund publishes gross 0 and the tax passed back as net: negative withholding, no warning (NVOx 2025-09-05)", () => {
    expect(breakdown(record("NVOx", "2025-09-05"))).toEqual({ gross: "0", withholding: "-0.1232128", retained: "0", net: "0.1232128", taxRate: "0", retentionRate: null, warnings: [] });
  });

  test("no rate published and something kept back: the parts are unknown (FLBLx 2026-08-07)", () => {
    const b = breakdown(record("FLBLx", "2026-08-07"));
    expect([b.gross, b.withholding, b.retained, b.net, b.taxRate, b.retentionRate]).toEqual(["0.14121", null, null, "0.09385645303", null, null]);
  });

  test("no net published: computed from gross and rate with a warning; with no rate, unknown (SPYx 2026-05-01, NVOx 2026-03-28)", () => {
    const noNet = breakdown({ ...record("SPYx", "2026-06-18"), netCashflowUsd: null });
    expect([noNet.net, noNet.withholding]).toEqual(["1.3324612", "0.5710548"]);
    expect(noNet.warnings).toEqual(["issuer net cash missing: computed as gross × (1 − withholding rate)"]);
    const unknown = breakdown(record("NVOx", "2026-03-28"));
    expect([unknown.gross, unknown.withholding, unknown.retained, unknown.net]).toEqual(["0.915824", null, null, null]);
    expect(unknown.warnings).toEqual(["issuer net cash missing and no withholding rate: USD unknown"]);
  });

  test("retention notes as the issuer wrote them; a note about paying back an earlier retention is not one (TSMx 2026-06-11)", () => {
    expect(show(publishedRetention("Retention of 5% to cover ccy flutuations. Dividend per share 1.52"))).toBe("0.05");
    expect(show(publishedRetention("Applied 5% retention to hedge currency fluctuations "))).toBe("0.05");
    expect(show(publishedRetention("Adding 5% retainer in order to absorb currency fluctuations"))).toBe("0.05");
    expect(publishedRetention(record("TSMx", "2026-06-11").notes)).toBeNull();
  });

  test("on every recorded cash record, where all parts are known they add up to gross exactly", () => {
    const cash = records.filter((r) => r.caType === "CashDividend" && r.status !== "Cancelled");
    expect(cash.length).toBeGreaterThan(600);
    for (const r of cash) {
      const b = readCash(revision(r), []);
      if (b.gross && b.withholding && b.retained && b.net) expect(add(add(b.net, b.withholding), b.retained)).toEqual(b.gross);
    }
  });

  test("property: any published gross, net, rate and retention add up", () => {
    const amount = fc.integer({ min: 0, max: 10_000_000 }).map((n) => (n / 1e6).toString());
    fc.assert(
      fc.property(amount, amount, fc.constantFrom(null, "0", "0.05", "0.15", "0.3"), fc.constantFrom(null, "Retention of 5% to cover ccy fluctuations"), (gross, net, rate, notes) => {
        const base = record("SPYx", "2026-06-18");
        const b = readCash(revision({ ...base, grossCashflowUsd: gross, netCashflowUsd: net, withholdingTaxRate: rate, notes }), []);
        if (b.withholding !== null) expect(formatExact(add(add(b.net!, b.withholding), b.retained!))).toBe(formatExact(parseDecimal(gross)));
        else expect(b.retained).toBeNull();
      }),
    );
  });
});
