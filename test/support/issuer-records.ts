// Issuer records written out as a test needs them, without repeating the fields it does not care about.
import type { IssuerRecord } from "../../src/domain/observations.ts";

/**
 * A cash dividend as the issuer first records it (version 1, status Initial, from multiplier 1, no
 * tax withheld, no optional field set); `fields` name the event, the symbol, when, and the amounts.
 */
export function untaxedDividendRecord(fields: Pick<IssuerRecord, "eventId" | "xstockSymbol" | "effectiveTimeUtc" | "multiplierNew" | "grossCashflowUsd" | "netCashflowUsd">): IssuerRecord {
  return {
    eventId: fields.eventId,
    version: 1,
    xstockSymbol: fields.xstockSymbol,
    spvSymbol: null,
    caType: "CashDividend",
    effectiveTimeUtc: fields.effectiveTimeUtc,
    multiplierOld: "1",
    multiplierNew: fields.multiplierNew,
    grossCashflowUsd: fields.grossCashflowUsd,
    netCashflowUsd: fields.netCashflowUsd,
    withholdingTaxRate: "0",
    fromUnits: null,
    toUnits: null,
    redemptionPriceUsd: null,
    notes: null,
    createdTimeUtc: null,
    status: "Initial",
    xstockIsin: null,
    spvIsin: null,
  };
}
