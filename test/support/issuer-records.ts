// Issuer records written out as a test or a bench needs them, without repeating the fields it does not care about.
import type { IssuerRecord } from "../../src/domain/observations.ts";

/**
 * A cash dividend as the issuer first records it (version 1, status Initial, from multiplier 1, no
 * tax withheld, no optional field set); `fields` name the event, the symbol, when, and the amounts.
 */
export function untaxedDividendRecord(fields: Pick<IssuerRecord, "eventId" | "xstockSymbol" | "effectiveTimeUtc" | "multiplierNew" | "grossCashflowUsd" | "netCashflowUsd">): IssuerRecord {
  const { effectiveTimeUtc, multiplierNew, ...amounts } = fields;
  return {
    ...issuerRecord({ ...amounts, caType: "CashDividend", at: 0, multiplierOld: 1, multiplierNew: multiplierNew ?? "", withholdingTaxRate: "0", createdTimeUtc: null }),
    effectiveTimeUtc,
    multiplierNew,
  };
}

/**
 * An issuer record as the xStocks feed writes one: the fields a case sets, the rest as the feed
 * leaves them (no units, no redemption, no notes, no ISINs, version 1, "Initial", created an hour
 * before it takes effect).
 */
export function issuerRecord(
  p: Pick<IssuerRecord, "eventId" | "xstockSymbol" | "caType"> & {
    /** When it takes effect, Unix seconds. */
    at: number;
    multiplierOld: string | number;
    multiplierNew: string | number;
  } & Partial<Omit<IssuerRecord, "effectiveTimeUtc" | "multiplierOld" | "multiplierNew">>,
): IssuerRecord {
  const { at, multiplierOld, multiplierNew, ...fields } = p;
  return {
    version: 1,
    spvSymbol: null,
    grossCashflowUsd: null,
    netCashflowUsd: null,
    withholdingTaxRate: null,
    fromUnits: null,
    toUnits: null,
    redemptionPriceUsd: null,
    notes: null,
    createdTimeUtc: new Date((at - 3600) * 1000).toISOString(),
    status: "Initial",
    xstockIsin: null,
    spvIsin: null,
    ...fields,
    effectiveTimeUtc: new Date(at * 1000).toISOString(),
    multiplierOld: String(multiplierOld),
    multiplierNew: String(multiplierNew),
  };
}
