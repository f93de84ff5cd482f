// An issuer record as the xStocks feed writes one, for tests and benches: the fields a case sets,
// the rest as the feed leaves them (no units, no redemption, no notes, no ISINs, version 1,
// "Initial", created an hour before it takes effect).
import type { IssuerRecord } from "../../src/domain/observations.ts";

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
