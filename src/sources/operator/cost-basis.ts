// An operator's cost-basis declarations (`ca-ledger import cost-basis <file>`,
// docs/lots.md#declared-cost-basis): what the chain cannot show, as CSV in one of two shapes,
// named by the header row (columns in any order):
//
//   owner,signature,costUsd                 the cost of the owner's acquisition in that transaction
//   owner,mint,acquiredAt,units,costUsd     units bought off chain, arriving later in the wallet
//
// The whole file is checked before anything is stored: the first bad row ends the import with an
// error naming its line and field, and nothing is written. Each declaration becomes an operator
// observation in canonical form (declarationPayload), so the same declaration imported twice is
// the same observation.
import { isAddress, isSignature } from "@solana/kit";
import { isDay } from "../../domain/date-range";
import type { CostBasisObservation } from "../../domain/lots/declarations";
import { formatExact, parseDecimal } from "../../domain/numbers";
import { CsvError, parseCsv } from "./csv";

export const COST_COLUMNS = ["owner", "signature", "costUsd"] as const;
export const LOT_COLUMNS = ["owner", "mint", "acquiredAt", "units", "costUsd"] as const;

/** Digits a declared amount may have: a dollar amount up to 10^15, units up to 10^20; 18 after the point (the engine's share grid). */
export const AMOUNT_DIGITS = { usd: 15, units: 20, after: 18 } as const;

export class CostBasisError extends Error {
  constructor(
    readonly line: number,
    readonly field: string | null,
    reason: string,
  ) {
    super(`line ${line}${field === null ? "" : `, ${field}`}: ${reason}`);
    this.name = "CostBasisError";
  }
}

/** Reads the whole file (`today` is the operator's UTC day, YYYY-MM-DD) or throws at the first bad row. */
export function parseCostBasis(text: string, today: string): CostBasisObservation[] {
  return parseCostBasisLines(text, today).map((d) => d.declaration);
}

/** The same, each declaration with the line it was read from (to name it in a later check). */
export function parseCostBasisLines(text: string, today: string): { line: number; declaration: CostBasisObservation }[] {
  let table;
  try {
    table = parseCsv(text);
  } catch (e) {
    const m = e instanceof CsvError ? /^line (\d+): (.*)$/.exec(e.message) : null;
    throw m ? new CostBasisError(Number(m[1]), null, m[2]!) : e;
  }
  const [header, ...body] = table;
  if (!header) throw new CostBasisError(1, null, `the file is empty; expected the header ${COST_COLUMNS.join(",")} or ${LOT_COLUMNS.join(",")}`);
  const columns = header.cells.map((c) => c.trim());
  const shape = shapeOf(columns, header.line);
  if (!body.length) throw new CostBasisError(header.line + 1, null, "the file has a header but no declaration");
  const seen = new Map<string, number>();
  return body.map(({ line, cells }) => ({ line, declaration: declarationOf(line, cells) }));

  function declarationOf(line: number, cells: string[]): CostBasisObservation {
    if (cells.length !== columns.length) throw new CostBasisError(line, null, `${cells.length} cells, the header has ${columns.length}`);
    const cell = Object.fromEntries(columns.map((c, i) => [c, cells[i]!.trim()]));
    const owner = address(line, "owner", cell.owner!);
    const costUsd = amount(line, "costUsd", cell.costUsd!, AMOUNT_DIGITS.usd, "a dollar amount, 0 or more (e.g. 7400.25)", false);
    if (shape === "cost") {
      const signature = cell.signature!;
      if (!isSignature(signature)) throw new CostBasisError(line, "signature", `expected a transaction signature (base58, 64 bytes), got ${shown(signature)}`);
      const key = `${owner} ${signature}`;
      const earlier = seen.get(key);
      if (earlier !== undefined) throw new CostBasisError(line, "signature", `this owner's transaction is already declared on line ${earlier}`);
      seen.set(key, line);
      return { kind: "cost", owner, signature, costUsd };
    }
    return {
      kind: "lot",
      owner,
      mint: address(line, "mint", cell.mint!),
      acquiredAt: when(line, cell.acquiredAt!, today),
      units: amount(line, "units", cell.units!, AMOUNT_DIGITS.units, "a number of units above 0 (e.g. 12.5)", true),
      costUsd,
    };
  }
}

export { declarationPayload } from "../../domain/lots/declarations";

function shapeOf(columns: string[], line: number): "cost" | "lot" {
  const has = (wanted: readonly string[]) => columns.length === wanted.length && wanted.every((c) => columns.includes(c));
  if (has(COST_COLUMNS)) return "cost";
  if (has(LOT_COLUMNS)) return "lot";
  const twice = columns.find((c, i) => columns.indexOf(c) !== i);
  if (twice !== undefined) throw new CostBasisError(line, null, `the column ${twice} appears twice`);
  const known = new Set<string>([...COST_COLUMNS, ...LOT_COLUMNS]);
  const unknown = columns.filter((c) => !known.has(c));
  const expected = `expected ${COST_COLUMNS.join(",")} or ${LOT_COLUMNS.join(",")}`;
  if (unknown.length) throw new CostBasisError(line, null, `unknown column ${unknown.map(shown).join(", ")}; ${expected}`);
  throw new CostBasisError(line, null, `the columns ${columns.join(",")} are neither shape; ${expected}`);
}

const shown = (s: string): string => JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}…` : s);

function address(line: number, field: string, value: string): string {
  if (!isAddress(value)) throw new CostBasisError(line, field, `expected a base58 Solana address (32 bytes), got ${shown(value)}`);
  return value;
}

/** A plain decimal (no sign, no exponent) written canonically: "7400.50" → "7400.5". */
function amount(line: number, field: string, value: string, before: number, what: string, positive: boolean): string {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(value);
  if (!m) throw new CostBasisError(line, field, `expected ${what}, got ${shown(value)}`);
  if (m[1]!.replace(/^0+(?=\d)/, "").length > before || (m[2] ?? "").length > AMOUNT_DIGITS.after) {
    throw new CostBasisError(line, field, `at most ${before} digits before the point and ${AMOUNT_DIGITS.after} after, got ${shown(value)}`);
  }
  const exact = parseDecimal(value);
  if (positive && exact.n === 0n) throw new CostBasisError(line, field, `expected ${what}, got ${shown(value)}`);
  return formatExact(exact);
}

const DAY_MS = 86_400_000;
const TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})$/;

/** A day (YYYY-MM-DD, its start in UTC) or a time with its offset, as ISO-8601 UTC; not after today. */
function when(line: number, value: string, today: string): string {
  const fail = (reason: string): never => {
    throw new CostBasisError(line, "acquiredAt", reason);
  };
  const expected = `expected a day YYYY-MM-DD or a time YYYY-MM-DDTHH:MM[:SS[.mmm]] with Z or an offset, got ${shown(value)}`;
  let ms: number;
  if (isDay(value)) ms = Date.parse(`${value}T00:00:00Z`);
  else {
    const m = TIME.exec(value);
    if (!m || !isDay(m[1]!) || Number(m[2]) > 23 || Number(m[3]) > 59 || Number(m[4] ?? 0) > 59) return fail(expected);
    ms = Date.parse(value);
    if (!Number.isFinite(ms)) return fail(expected);
  }
  if (ms >= Date.parse(`${today}T00:00:00Z`) + DAY_MS) fail(`the date ${value} is after today (${today}, UTC): a purchase cannot be declared in advance`);
  if (ms < 0) fail(`the date ${value} is before 1970`);
  return new Date(ms).toISOString();
}
