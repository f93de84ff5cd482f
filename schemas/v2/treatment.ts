// The tax treatment (docs/lots.md#two-treatments): named in every v2 report, lot list, gains list
// and export, and chosen per request. Its own file because the year report (reports.ts) and the
// lots (lots.ts) both take it, and lots.ts reads reports.ts.
import { literals } from "../common.ts";

export const taxTreatments = ["income", "deferred"] as const;

export const TREATMENT_TEXT =
  "income: a reinvested dividend is income when the multiplier rises, its units a new lot at the net USD booked; " +
  "deferred: every multiplier change scales the lots, basis unchanged, and the reinvested amount is realized at disposal";

export const TaxTreatment = literals(taxTreatments, { title: "TaxTreatment", description: `The reading of reinvested income this answer uses. ${TREATMENT_TEXT}` });
export const treatmentQuery = literals(taxTreatments, { description: `The reading of reinvested income; default the server's (TAX_TREATMENT, income). ${TREATMENT_TEXT}` });
