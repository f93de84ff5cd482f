// One tenant's lots under a treatment and a method, derived per call from what lotInputs reads
// (docs/lots.md#the-three-routes): the whole tenant is derived (own transfers need every wallet
// it follows), the caller shows the wallets it was asked for. Nothing derived is stored.
import { deriveLots, type LotMethod, type LotReport, type TaxTreatment } from "../../domain/lots/index.ts";
import type { InstrumentNames } from "../../domain/lots/present.ts";
import type { Sql } from "../sql/port.ts";
import { lotInputs } from "./lot-inputs.ts";

export interface LotReportRequest {
  method: LotMethod;
  treatment: TaxTreatment;
  /** The window's first day, YYYY-MM-DD (UTC, from its start); none: the beginning of the history. */
  from?: string;
  /** The window's last day, YYYY-MM-DD (UTC, to its end); none: everything recorded. */
  asOf?: string;
  /** The wallets the caller will show; none: all of them. Only what their lots depend on is derived. */
  wallets?: readonly string[];
  /** The USD stablecoin mints (the STABLECOINS setting). */
  stablecoins: readonly string[];
  now?: Date;
}

const DAY_MS = 86_400_000;
/** The first and the last millisecond of a UTC day. */
export const dayStart = (day: string): number => Date.parse(`${day}T00:00:00.000Z`);
export const dayEnd = (day: string): number => dayStart(day) + DAY_MS - 1;

/** The tenant's lot report over the window, with the names of its mints; the inputs' problems are listed with the engine's. */
export async function tenantLotReport(db: Sql, tenantId: number, r: LotReportRequest): Promise<{ report: LotReport; names: InstrumentNames; owners: string[] }> {
  const input = await lotInputs(db, tenantId, { stablecoins: r.stablecoins, now: r.now, ...(r.wallets ? { linkedTo: [...r.wallets] } : {}) });
  const report = deriveLots(input, {
    method: r.method,
    treatment: r.treatment,
    ...(r.from === undefined ? {} : { from: dayStart(r.from) }),
    ...(r.asOf === undefined ? {} : { asOf: dayEnd(r.asOf) }),
  });
  return { report: { ...report, problems: [...input.problems, ...report.problems] }, names: input.names, owners: input.owners };
}
