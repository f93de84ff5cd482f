// The rows of `/v1/export?dataset=gains` and `dataset=lots` (docs/lots.md#exports). Pure: rows
// of cells in, src/http/csv.ts writes them (with the `dataset` column first, like the other
// exports). Figures are those of the JSON routes (src/domain/lots/present.ts), to the digit.
//
// `gains` follows IRS Form 8949's columns (a)–(h): (a) a description such as "12.5 SPYx", (b) and
// (c) dates as MM/DD/YYYY (the form's "Mo., day, yr."; UTC dates, as the ledger's term uses), (d)
// proceeds, (e) cost or other basis, (f) code and (g) adjustment left blank (the ledger knows of
// none: a wash sale or another adjustment is the filer's), (h) gain or loss; then the term
// (short: Part I, long: Part II; short rows first) and the ledger's own columns. One row per
// disposal × lot; `bySale` folds one disposal's lots of one term into one row whose (b) is
// "VARIOUS" when their dates differ, as the form's instructions allow.
import { quantityForPeople, usdForPeople } from "../display";
import { sum, type Rat } from "../numbers";
import { exactText, instrumentInfo, type InstrumentNames } from "./present";
import type { OpenLot, RealizedRow, Term } from "./types";

export const GAINS_COLUMNS = [
  "(a) Description of property",
  "(b) Date acquired",
  "(c) Date sold or disposed of",
  "(d) Proceeds (sales price)",
  "(e) Cost or other basis",
  "(f) Code(s) from instructions",
  "(g) Amount of adjustment",
  "(h) Gain or (loss)",
  "term",
  "wallet",
  "symbol",
  "mint",
  "units",
  "signature",
  "actionId",
  "lotSource",
  "reason",
] as const;

export const LOTS_COLUMNS = [
  "wallet",
  "symbol",
  "mint",
  "acquiredAt",
  "units",
  "basisUsd",
  "basisKnown",
  "source",
  "signature",
  "actionId",
  "reason",
  "lotId",
  "originWallet",
  "originSource",
  "exactUnits",
  "exactBasisUsd",
] as const;

/** What Form 8949 column (b) says for several acquisition dates in one row. */
export const VARIOUS = "VARIOUS";

type Cell = string | null;

/** MM/DD/YYYY of the UTC date. */
export function formDate(ms: number): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(0, 4)}`;
}

const usdCell = (r: Rat | null): Cell => (r === null ? null : usdForPeople(r));
const TERM_ORDER: Record<Term, number> = { short: 0, long: 1 };

/** One row of the form, from one disposal's part: its lots' units, dates, and sums (a sum is null when a part is unknown). */
interface Part {
  owner: string;
  mint: string;
  units: Rat;
  acquired: (number | null)[];
  disposedAt: number;
  proceeds: Rat | null;
  basis: Rat | null;
  gain: Rat | null;
  term: Term;
  signature: string | null;
  actionId: string | null;
  lotSources: string[];
  reasons: string[];
}

const partOf = (r: RealizedRow): Part => ({
  owner: r.owner,
  mint: r.mint,
  units: r.units,
  acquired: [r.acquiredAt],
  disposedAt: r.disposedAt,
  proceeds: r.proceedsUsd,
  basis: r.basisUsd,
  gain: r.gainUsd,
  term: r.term,
  signature: r.signature,
  actionId: r.actionId,
  lotSources: r.lotSource === null ? [] : [r.lotSource],
  reasons: r.reason === null ? [] : [r.reason],
});

const allKnown = (xs: (Rat | null)[]): Rat | null => (xs.includes(null) ? null : sum(xs as Rat[]));
const unique = (xs: string[]): string[] => [...new Set(xs)];

/** One disposal's rows of one term as one row: units and amounts summed exactly, unknown when any part is. */
function bySale(rows: readonly RealizedRow[]): Part[] {
  const groups = new Map<string, RealizedRow[]>();
  for (const r of rows) {
    const key = [r.owner, r.mint, r.disposedAt, r.signature ?? "", r.actionId ?? "", r.term].join("\u0000");
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()].map((g) => ({
    ...partOf(g[0]!),
    units: sum(g.map((r) => r.units)),
    acquired: g.map((r) => r.acquiredAt),
    proceeds: allKnown(g.map((r) => r.proceedsUsd)),
    basis: allKnown(g.map((r) => r.basisUsd)),
    gain: allKnown(g.map((r) => r.gainUsd)),
    lotSources: unique(g.flatMap((r) => (r.lotSource === null ? [] : [r.lotSource]))),
    reasons: unique(g.flatMap((r) => (r.reason === null ? [] : [r.reason]))),
  }));
}

function dateAcquired(acquired: (number | null)[]): Cell {
  const days = unique(acquired.map((at) => (at === null ? "" : formDate(at))));
  if (days.length > 1) return VARIOUS;
  return days[0] || null;
}

/**
 * The `gains` rows of the realized rows given (the caller picks the wallet and the window):
 * short-term rows first, then long-term, each in time order.
 */
export function gainsExportRows(rows: readonly RealizedRow[], names: InstrumentNames, options: { bySale?: boolean } = {}): Cell[][] {
  const parts = options.bySale ? bySale(rows) : rows.map(partOf);
  const ordered = parts.map((p, i) => ({ p, i })).sort((a, b) => TERM_ORDER[a.p.term] - TERM_ORDER[b.p.term] || a.i - b.i);
  return ordered.map(({ p }) => {
    const info = instrumentInfo(names, p.mint);
    const units = quantityForPeople(p.units, info.decimals);
    return [
      `${units} ${info.symbol ?? p.mint}`,
      dateAcquired(p.acquired),
      formDate(p.disposedAt),
      usdCell(p.proceeds),
      usdCell(p.basis),
      null,
      null,
      usdCell(p.gain),
      p.term,
      p.owner,
      info.symbol,
      p.mint,
      units,
      p.signature,
      p.actionId,
      p.lotSources.join("; ") || null,
      p.reasons.join("; ") || null,
    ];
  });
}

/** The `lots` rows of the open lots given (the caller picks the wallet and the day): the figures of GET /v2/lots. */
export function lotsExportRows(lots: readonly OpenLot[], names: InstrumentNames): Cell[][] {
  return lots.map((l) => {
    const info = instrumentInfo(names, l.mint);
    return [
      l.owner,
      info.symbol,
      l.mint,
      new Date(l.acquiredAt).toISOString(),
      quantityForPeople(l.units, info.decimals),
      usdCell(l.basisUsd),
      String(l.basisKnown),
      l.source,
      l.signature,
      l.actionId,
      l.reason,
      l.id,
      l.origin.owner,
      l.origin.source,
      exactText(l.units),
      l.basisUsd === null ? null : exactText(l.basisUsd),
    ];
  });
}
