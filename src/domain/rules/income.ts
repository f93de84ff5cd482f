// Income: cash the issuer distributed and reinvested through the multiplier. Booked as income
// units U1 − U0 worth U0 × net cash a share, with the breakdown into gross, withholding tax,
// retention and net (src/domain/cash.ts).
import { type BookingFacts, startBooking, valueCash } from "../book";
import { IMPLAUSIBLE_CASH, readCash, withoutAmounts } from "../cash";
import type { Classified } from "../classified";
import { roundedText, usdInText } from "../display";
import { cmp, div, mul, ONE, type Rat, rat, sub, ZERO } from "../numbers";
import { isWithholdingRefund } from "../revisions";
import { dividendV1 } from "../v1";
import { impliedPrice, type IssuerReading, type TypeRule } from "./rule";

const REFUND_NOTE = "passes back tax withheld earlier; not a new dividend";
const REFUND_V1_NOTE = "This refund passes back tax withheld earlier and is not a new dividend";

/** A units ratio other than 1 on a cash record: part of the distribution came as shares. */
const stockPart = (x: IssuerReading): Rat | null => (x.units !== null && cmp(x.units, ONE) !== 0 ? x.units : null);
const isCashAndStock = (x: IssuerReading): boolean => x.caType === "cashandstockdividend" || stockPart(x) !== null;

/** Reads the cash and checks it against the chain: the multiplier must rise past any stock part. */
function classifyIncome(c: Classified, x: IssuerReading): void {
  const stock = c.factor ?? ONE;
  c.cash = readCash(x.revision, c.warnings);
  c.impliedPrice = impliedPrice(c.mOld, c.mNew, c.cash.net, stock);
  const before = mul(c.mOld, stock);
  if (cmp(c.mNew, before) <= 0) {
    c.warnings.push("multiplier did not rise: the chain change does not reconcile with a distribution");
    c.reconciled = false;
  } else if (c.cash.net !== null && c.cash.net.n === 0n) {
    // A record of no cash cannot explain a rise: unknown, not a zero dividend.
    const percent = cmp(before, ZERO) > 0 ? ` ${roundedText(mul(sub(div(c.mNew, before), ONE), rat(100)), 2)}%` : "";
    c.warnings.push(`issuer record shows no cash while the multiplier rose${percent}: USD unknown`);
    c.cash = withoutAmounts(c.cash);
  }
}

/** "… matches the chain multipliers: $1.332461 a share net (gross $1.903516, withholding tax $0.571055); reinvested at $741.18 a share". */
function explainIncome(c: Classified): string {
  const cash = c.cash;
  if (c.warnings.includes(IMPLAUSIBLE_CASH) && c.impliedPrice) {
    return `${c.match.reason}: its cash implies a reinvestment price of ${usdInText(c.impliedPrice)} a share, outside ×3 of the asset's other events; USD unknown`;
  }
  if (!cash || cash.net === null) return `${c.match.reason}; net cash a share unknown`;
  const refund = c.type === "withholding_adjustment";
  const amount = refund ? `${usdInText(cash.net)} a share of tax withheld earlier, passed back` : `${usdInText(cash.net)} a share net`;
  const parts: string[] = [];
  if (!refund && cash.gross !== null) parts.push(`gross ${usdInText(cash.gross)}`);
  if (!refund && cash.withholding !== null && cash.withholding.n !== 0n) parts.push(`withholding tax ${usdInText(cash.withholding)}`);
  if (cash.retained !== null && cash.retained.n !== 0n) parts.push(`retained ${usdInText(cash.retained)} for currency or fees`);
  const price = c.impliedPrice ? `; reinvested at ${usdInText(c.impliedPrice)} a share` : "";
  return `${c.match.reason}: ${amount}${parts.length ? ` (${parts.join(", ")})` : ""}${price}`;
}

/** usd = U0 × net cash a share; the units U1 − U0 are income units. */
function bookCashDividend(c: Classified, raw: bigint, decimals: number): BookingFacts {
  const f = startBooking(c, raw, decimals);
  f.incomeUnits = f.delta;
  valueCash(f, c.cash);
  return f;
}

/** Cash part as a dividend; stock part scales the position by F_stock with basis spread. */
function bookCashAndStockDividend(c: Classified, raw: bigint, decimals: number): BookingFacts {
  const f = startBooking(c, raw, decimals);
  const stock = c.factor ?? ONE;
  f.scale = stock;
  f.incomeUnits = sub(f.u1, mul(f.u0, stock));
  valueCash(f, c.cash);
  return f;
}

const income = { category: "income", treatment: "income", v1Kind: "dividend", lineage: null, explain: explainIncome } as const;

export const cashDividend: TypeRule = {
  ...income,
  type: "cash_dividend",
  label: "Cash dividend",
  caTypes: ["cashdividend"],
  recognises: (x) => !isCashAndStock(x) && !isWithholdingRefund(x.revision),
  classify: classifyIncome,
  book: bookCashDividend,
  restatesBasis: false,
  v1: (a) => dividendV1("Cash dividend", a),
};

/** A Corrected follow-on passing back tax withheld (gross 0, net > 0): booked as a dividend, with a note. */
export const withholdingAdjustment: TypeRule = {
  ...income,
  type: "withholding_adjustment",
  label: "Withholding tax adjustment",
  caTypes: ["cashdividend"],
  recognises: (x) => stockPart(x) === null && isWithholdingRefund(x.revision),
  classify: (c, x) => {
    classifyIncome(c, x);
    c.refundNote = x.record.notes ? `${REFUND_NOTE}. Issuer: ${x.record.notes.trim()}` : REFUND_NOTE;
  },
  book: bookCashDividend,
  restatesBasis: false,
  v1: (a) => dividendV1("Withholding tax adjustment", a, [REFUND_V1_NOTE]),
};

/** Both a cash and a stock part published: the cash part is income, the stock part units ×F. */
export const cashAndStockDividend: TypeRule = {
  ...income,
  type: "cash_and_stock_dividend",
  label: "Cash and stock dividend",
  caTypes: ["cashdividend", "cashandstockdividend"],
  recognises: isCashAndStock,
  classify: (c, x) => {
    c.factor = stockPart(x) ?? ONE;
    classifyIncome(c, x);
  },
  book: bookCashAndStockDividend,
  restatesBasis: true,
  v1: (a) => dividendV1("Cash and stock dividend", a),
};
