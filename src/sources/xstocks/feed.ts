// One issuer poll as the observations to store. The asset list carries no ISIN: each instrument
// takes it from the issuer's own corporate-action records (the newest that names one), so live
// assets and lineage show the ISIN the issuer publishes.
import type { InstrumentObs, IssuerRecord } from "../../domain/observations";
import { attachIsins, type SourceRejection } from "./records";

interface Fetched { rejections: SourceRejection[] }

export function issuerObservations(
  assets: Fetched & { instruments: InstrumentObs[] },
  history: Fetched & { records: IssuerRecord[] },
  upcoming: Fetched & { records: IssuerRecord[] },
) {
  const issuerRecords = [...history.records, ...upcoming.records];
  return {
    instruments: attachIsins(assets.instruments, issuerRecords),
    issuerRecords,
    issuerRejections: [...assets.rejections, ...history.rejections, ...upcoming.rejections].map((r) => ({ source: r.source, payload: r.payload, reason: r.reason })),
  };
}
