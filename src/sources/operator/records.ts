// An operator's issuer records (`ca-ledger import issuer-records <file>`): the issuer record's
// shape plus the `mint` it speaks of, as JSON (an array, or one object per line) or as CSV with
// those columns. The whole file is checked before anything is stored: the first bad row ends the
// import with an error naming the row and the field, and nothing is written.
//
// Each record is validated exactly as the issuer's own (records.ts), with two differences made
// for people writing records by hand: a nullable field may be left out (it is null), and a field
// the shape does not have is an error (a misspelt "netCashFlowUsd" must not vanish silently).
// One field is the operator's own: `distributedName`, the holding a spin-off or rights
// distribution distributed when the issuer does not name it (docs/other-issuers.md#operator-records).
// It is kept only when given (a non-empty string), so a record without it hashes as before.
import { isAddress } from "@solana/kit";
import type { OperatorRecord } from "../../domain/observations";
import { parseIssuerRecord } from "../xstocks/records";
import { CsvError, parseCsv } from "./csv";

export class OperatorRecordsError extends Error {}

/** Every field of an operator record, in the order a CSV header lists them. */
export const OPERATOR_FIELDS = [
  "mint",
  "eventId",
  "version",
  "xstockSymbol",
  "spvSymbol",
  "caType",
  "status",
  "effectiveTimeUtc",
  "createdTimeUtc",
  "multiplierOld",
  "multiplierNew",
  "grossCashflowUsd",
  "netCashflowUsd",
  "withholdingTaxRate",
  "fromUnits",
  "toUnits",
  "redemptionPriceUsd",
  "notes",
  "xstockIsin",
  "spvIsin",
  "distributedName",
] as const;
/** Fields of the operator's own, not of the issuer record's shape. */
const OPERATOR_ONLY = new Set(["mint", "distributedName"]);
const NAME_MAX = 200;
const REQUIRED = new Set(["mint", "eventId", "version", "xstockSymbol", "caType", "status"]);

interface Row {
  where: string;
  value: unknown;
}

/** Parses a whole file; throws OperatorRecordsError at the first bad row. */
export function parseOperatorRecords(text: string, fileName = ""): OperatorRecord[] {
  const rows = /\.csv$/i.test(fileName) || (!/\.(json|jsonl|ndjson)$/i.test(fileName) && !/^\s*[[{]/.test(text)) ? csvRows(text) : jsonRows(text);
  if (!rows.length) throw new OperatorRecordsError("the file holds no record");
  return rows.map(operatorRecord);
}

function operatorRecord({ where, value }: Row): OperatorRecord {
  const fail = (reason: string): never => {
    throw new OperatorRecordsError(`${where}: ${reason}`);
  };
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail("expected an object with the issuer record's fields and a mint");
  const row = value as Record<string, unknown>;
  const unknown = Object.keys(row).filter((k) => !(OPERATOR_FIELDS as readonly string[]).includes(k));
  if (unknown.length) fail(`unknown field ${unknown.join(", ")} (the fields are ${OPERATOR_FIELDS.join(", ")})`);
  const missing = OPERATOR_FIELDS.filter((k) => REQUIRED.has(k) && (row[k] === undefined || row[k] === null));
  if (missing.length) fail(`missing field ${missing.join(", ")}`);
  if (typeof row.mint !== "string" || !isAddress(row.mint)) fail(`mint: expected a base58 Solana address, got ${JSON.stringify(row.mint)}`);
  const filled = Object.fromEntries(OPERATOR_FIELDS.filter((k) => !OPERATOR_ONLY.has(k)).map((k) => [k, row[k] === undefined ? null : row[k]]));
  const parsed = parseIssuerRecord(filled);
  if (!parsed.ok) return fail(parsed.reason);
  const name = row.distributedName;
  if (name === undefined || name === null || name === "") return { ...parsed.value, mint: row.mint as string };
  if (typeof name !== "string" || name.trim() !== name || name.length > NAME_MAX || /[\u0000-\u001f\u007f]/.test(name)) {
    return fail(`distributedName: expected the distributed holding's name (1 to ${NAME_MAX} characters, no control characters or outer spaces), got ${JSON.stringify(name)}`);
  }
  return { ...parsed.value, mint: row.mint as string, distributedName: name };
}

function jsonRows(text: string): Row[] {
  if (/^\s*\[/.test(text)) {
    let all: unknown;
    try {
      all = JSON.parse(text);
    } catch (e) {
      throw new OperatorRecordsError(`not valid JSON: ${(e as Error).message}`);
    }
    if (!Array.isArray(all)) throw new OperatorRecordsError("expected a JSON array of records");
    return all.map((value, i) => ({ where: `record ${i + 1}`, value }));
  }
  // One record per line (JSON Lines); blank lines are skipped.
  const rows: Row[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    try {
      rows.push({ where: `line ${i + 1}`, value: JSON.parse(line) });
    } catch (e) {
      throw new OperatorRecordsError(`line ${i + 1}: not valid JSON: ${(e as Error).message}`);
    }
  });
  return rows;
}

/** CSV: a header of field names, then one record a row; an empty cell is null, `version` a whole number. */
function csvRows(text: string): Row[] {
  let table;
  try {
    table = parseCsv(text);
  } catch (e) {
    throw new OperatorRecordsError(e instanceof CsvError ? e.message : String(e));
  }
  const [header, ...body] = table;
  if (!header) return [];
  const columns = header.cells.map((c) => c.trim());
  const unknown = columns.filter((c) => !(OPERATOR_FIELDS as readonly string[]).includes(c));
  if (unknown.length) throw new OperatorRecordsError(`line ${header.line}: unknown column ${unknown.join(", ")} (the columns are ${OPERATOR_FIELDS.join(", ")})`);
  return body.map(({ line, cells }) => {
    const where = `line ${line}`;
    if (cells.length !== columns.length) throw new OperatorRecordsError(`${where}: ${cells.length} cells, the header has ${columns.length}`);
    const value: Record<string, unknown> = {};
    columns.forEach((c, i) => {
      const cell = cells[i]!;
      value[c] = cell === "" ? null : c === "version" && /^\d+$/.test(cell) ? Number(cell) : cell;
    });
    return { where, value };
  });
}
