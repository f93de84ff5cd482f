// The bodies of GET /v2/lots, /v2/reports/gains and /v2/reports/holdings (docs/lots.md#the-three-routes)
// from one LotReport. Pure: the route derives the report and names the instruments; this shapes
// it for people by the one display rule (src/domain/display.ts): USD half-even at 6 decimals,
// units at the mint's decimals (a wallet's total as the Token-2022 program shows it), the exact
// values under `exact`, a total the sum of exact values rounded once. A currency is converted as
// the income report does it (src/domain/income-report.ts): each amount at the reference rate of
// its own day, the basis at the acquisition's and the proceeds at the disposal's.
import { quantityForPeople, uiAmount, usdForPeople } from "../display";
import { type Conversion, missingRateReason, rateForPeople } from "../income-report";
import { div, formatDecimal, formatExact, mul, nearestF64, pow10, type Rat, rat, sub, sum } from "../numbers";
import { type GainTotal, gainTotals } from "./summary";
import type { InstrumentTotals, LotProblem, LotReport, OpenLot, RealizedRow } from "./types";

/** What the ledger knows of a mint: its symbol, ISIN and decimals (from the instruments table). */
export interface InstrumentInfo {
  symbol: string | null;
  isin: string | null;
  decimals: number;
}
export type InstrumentNames = ReadonlyMap<string, InstrumentInfo>;

/** Decimals a mint the ledger cannot name is shown at: nothing rounded away that the exact value has. */
export const UNNAMED_DECIMALS = 18;
/** A mint's symbol, ISIN and decimals; for a mint the ledger cannot name, none and UNNAMED_DECIMALS. */
export const instrumentInfo = (names: InstrumentNames, mint: string): InstrumentInfo => names.get(mint) ?? { symbol: null, isin: null, decimals: UNNAMED_DECIMALS };

/** The ledger's dataset label, as every body carries it (schemas/common.ts DatasetLabel). */
export interface Dataset {
  kind: "mainnet" | "synthetic";
  description: string | null;
}

// ---- the display rule -------------------------------------------------------------------------

/** Exact, or 18 decimals half-even where the expansion does not end (a ratio of two multipliers). */
export const exactText = (r: Rat): string => formatDecimal(r, 18);
const exactOrNull = (r: Rat | null): string | null => (r === null ? null : exactText(r));
const usdOrNull = (r: Rat | null): string | null => (r === null ? null : usdForPeople(r));
const iso = (ms: number): string => new Date(ms).toISOString();
const dayOf = (ms: number): string => iso(ms).slice(0, 10);

/**
 * A wallet's units of a mint as its wallet shows them: the lots hold exactly raw × M ÷ 10^d, so
 * the raw balance is read back and rendered as AmountToUiAmount renders it. Units that are no
 * whole raw amount at M (an incomplete history) are rounded half-even at the mint's decimals.
 */
export function walletUnitsText(units: Rat, multiplier: Rat | null, decimals: number): string {
  if (multiplier !== null && multiplier.n > 0n && units.n >= 0n) {
    const raw = div(mul(units, rat(pow10(decimals))), multiplier);
    if (raw.d === 1n) return uiAmount(raw.n, nearestF64(multiplier), decimals);
  }
  return quantityForPeople(units, decimals);
}

function problemShown(p: LotProblem) {
  return { owner: p.owner, mint: p.mint, at: p.at === null ? null : iso(p.at), code: p.code, message: p.message };
}

const ownedBy = (owners: ReadonlySet<string>) => (x: { owner: string }) => owners.has(x.owner);

// ---- GET /v2/lots ---------------------------------------------------------------------------------

function lotShown(l: OpenLot, names: InstrumentNames) {
  const { symbol, decimals } = instrumentInfo(names, l.mint);
  return {
    id: l.id,
    symbol,
    mint: l.mint,
    acquiredAt: iso(l.acquiredAt),
    units: quantityForPeople(l.units, decimals),
    basisUsd: usdOrNull(l.basisUsd),
    basisKnown: l.basisKnown,
    source: l.source,
    signature: l.signature,
    actionId: l.actionId,
    reason: l.reason,
    origin: { ...l.origin },
    exact: { units: exactText(l.units), basisUsd: exactOrNull(l.basisUsd) },
  };
}

function instrumentShown(i: InstrumentTotals, names: InstrumentNames) {
  const { symbol, decimals } = instrumentInfo(names, i.mint);
  return {
    symbol,
    mint: i.mint,
    units: walletUnitsText(i.units, i.multiplier, decimals),
    basisUsd: usdForPeople(i.basisUsd),
    unknownBasisUnits: quantityForPeople(i.unknownBasisUnits, decimals),
    exact: { units: exactText(i.units), basisUsd: exactText(i.basisUsd), unknownBasisUnits: exactText(i.unknownBasisUnits) },
  };
}

/** One wallet's open lots at the end of `asOf` (the report was derived for the whole tenant, up to then). */
export function lotsBody(report: LotReport, q: { owner: string; asOf: string; dataset: Dataset }, names: InstrumentNames) {
  const mine = ownedBy(new Set([q.owner]));
  return {
    owner: q.owner,
    dataset: q.dataset,
    treatment: report.treatment,
    method: report.method,
    asOf: q.asOf,
    lots: report.lots.filter(mine).map((l) => lotShown(l, names)),
    instruments: report.instruments.filter(mine).map((i) => instrumentShown(i, names)),
    problems: report.problems.filter(mine).map(problemShown),
  };
}

// ---- GET /v2/reports/gains ------------------------------------------------------------------------

/**
 * A row in the currency: proceeds at the disposal day's rate, basis at the acquisition day's, and
 * the days whose rate a known USD amount of the row needed and did not have (`missing`).
 */
function convertRow(r: RealizedRow, conversion: Conversion) {
  const at = (ms: number | null, usd: Rat | null) => {
    const day = ms === null ? null : dayOf(ms);
    const quote = day === null ? null : conversion.quoteOn(day);
    return { day, quote, value: usd !== null && quote ? mul(usd, quote.rate) : null, missing: usd !== null && !quote && day !== null ? day : null };
  };
  const proceeds = at(r.disposedAt, r.proceedsUsd);
  const basis = at(r.acquiredAt, r.basisUsd);
  const gain = proceeds.value !== null && basis.value !== null ? sub(proceeds.value, basis.value) : null;
  const missing = [proceeds.missing, basis.missing].filter((d): d is string => d !== null).sort();
  return {
    proceeds: proceeds.value,
    basis: basis.value,
    gain,
    missing,
    shown: {
      currency: conversion.currency,
      proceeds: usdOrNull(proceeds.value),
      basis: usdOrNull(basis.value),
      gain: usdOrNull(gain),
      exact: { proceeds: exactOrNull(proceeds.value), basis: exactOrNull(basis.value), gain: exactOrNull(gain) },
      rates: { proceeds: proceeds.quote ? rateForPeople(proceeds.day!, proceeds.quote) : null, basis: basis.quote ? rateForPeople(basis.day!, basis.quote) : null },
      reason: missing.length ? missingRateReason(1, missing[0]!, conversion.currency, "row") : null,
    },
  };
}

type ConvertedRow = ReturnType<typeof convertRow>;

function gainRowShown(r: RealizedRow, names: InstrumentNames, converted: ConvertedRow | null) {
  const { symbol, decimals } = instrumentInfo(names, r.mint);
  return {
    owner: r.owner,
    symbol,
    mint: r.mint,
    units: quantityForPeople(r.units, decimals),
    acquiredAt: r.acquiredAt === null ? null : iso(r.acquiredAt),
    disposedAt: iso(r.disposedAt),
    proceedsUsd: usdOrNull(r.proceedsUsd),
    basisUsd: usdOrNull(r.basisUsd),
    gainUsd: usdOrNull(r.gainUsd),
    term: r.term,
    signature: r.signature,
    actionId: r.actionId,
    lotId: r.lotId,
    lotSource: r.lotSource,
    reason: r.reason,
    exact: { units: exactText(r.units), proceedsUsd: exactOrNull(r.proceedsUsd), basisUsd: exactOrNull(r.basisUsd), gainUsd: exactOrNull(r.gainUsd) },
    ...(converted ? { converted: converted.shown } : {}),
  };
}

/**
 * A term's converted sums: each over the rows whose USD value is known; null (with the reason)
 * when one of those rows has no rate for its day.
 */
function convertedTotal(rows: { row: RealizedRow; converted: ConvertedRow }[], currency: string) {
  const column = (usd: (r: RealizedRow) => Rat | null, value: (c: ConvertedRow) => Rat | null): Rat | null => {
    const known = rows.filter(({ row }) => usd(row) !== null);
    return known.some(({ converted }) => value(converted) === null) ? null : sum(known.map(({ converted }) => value(converted)!));
  };
  const proceeds = column(
    (r) => r.proceedsUsd,
    (c) => c.proceeds,
  );
  const basis = column(
    (r) => r.basisUsd,
    (c) => c.basis,
  );
  const gain = column(
    (r) => r.gainUsd,
    (c) => c.gain,
  );
  const missing = rows.filter(({ converted }) => converted.missing.length > 0);
  const firstDay = missing.map(({ converted }) => converted.missing[0]!).sort()[0] ?? null;
  return {
    currency,
    proceeds: usdOrNull(proceeds),
    basis: usdOrNull(basis),
    gain: usdOrNull(gain),
    exact: { proceeds: exactOrNull(proceeds), basis: exactOrNull(basis), gain: exactOrNull(gain) },
    reason: missingRateReason(missing.length, firstDay, currency, "totals"),
  };
}

function gainTotalShown(t: GainTotal) {
  return {
    proceedsUsd: usdForPeople(t.proceedsUsd),
    basisUsd: usdForPeople(t.basisUsd),
    gainUsd: usdForPeople(t.gainUsd),
    rows: t.rows,
    unknownRows: t.unknownRows,
    exact: { proceedsUsd: exactText(t.proceedsUsd), basisUsd: exactText(t.basisUsd), gainUsd: exactText(t.gainUsd) },
  };
}

/** The days whose reference rate gainsBody asks a Conversion for: every disposal's and every known acquisition's. */
export function gainsRateDays(report: LotReport, owners: readonly string[]): string[] {
  const mine = ownedBy(new Set(owners));
  const days = new Set<string>();
  for (const r of report.realized.filter(mine)) {
    days.add(dayOf(r.disposedAt));
    if (r.acquiredAt !== null) days.add(dayOf(r.acquiredAt));
  }
  return [...days].sort();
}

/**
 * A year's realized gains of the wallets named (the report derived for the whole tenant with
 * from = 1 January and asOf = the end of 31 December): rows in time order, totals per term the
 * sums of the rows' exact values, each rounded once.
 */
export function gainsBody(report: LotReport, q: { year: number; owners: readonly string[]; dataset: Dataset; conversion?: Conversion | null }, names: InstrumentNames) {
  const owners = ownedBy(new Set(q.owners));
  const conversion = q.conversion ?? null;
  const realized = report.realized.filter(owners).map((row) => ({ row, converted: conversion ? convertRow(row, conversion) : null }));
  const totals = gainTotals(realized.map(({ row }) => row));
  const total = (term: "short" | "long"): ReturnType<typeof gainTotalShown> & { converted?: ReturnType<typeof convertedTotal> } => {
    const shown = gainTotalShown(totals[term]);
    if (!conversion) return shown;
    const rows = realized.filter(({ row }) => row.term === term) as { row: RealizedRow; converted: ConvertedRow }[];
    return { ...shown, converted: convertedTotal(rows, conversion.currency) };
  };
  return {
    year: q.year,
    dataset: q.dataset,
    owners: [...q.owners],
    treatment: report.treatment,
    method: report.method,
    currency: conversion?.currency ?? null,
    rows: realized.map(({ row, converted }) => gainRowShown(row, names, converted)),
    totals: { short: total("short"), long: total("long") },
    problems: report.problems.filter(owners).map(problemShown),
  };
}

// ---- GET /v2/reports/holdings ---------------------------------------------------------------------

/**
 * The statement's reconciliation: units that left beyond what the recorded history held
 * (uncovered) are shown apart, so opening + acquired − disposed + own + corporate = closing
 * holds exactly as the statement states it.
 */
function reconciliationOf(i: InstrumentTotals) {
  const r = i.reconciliation;
  return {
    openingUnits: r.openingUnits,
    acquiredUnits: r.acquiredUnits,
    disposedUnits: sub(r.disposedUnits, r.uncoveredUnits),
    ownTransferUnits: r.ownTransferUnits,
    corporateActionUnits: r.corporateActionUnits,
    closingUnits: r.closingUnits,
    uncoveredUnits: r.uncoveredUnits,
  };
}

const mapValues = <K extends string, A, B>(o: Record<K, A>, f: (a: A) => B): Record<K, B> => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v as A)])) as Record<K, B>;

function holdingShown(i: InstrumentTotals, names: InstrumentNames) {
  const info = instrumentInfo(names, i.mint);
  const totals = instrumentShown(i, names);
  const units = reconciliationOf(i);
  return {
    symbol: totals.symbol,
    mint: totals.mint,
    units: totals.units,
    basisUsd: totals.basisUsd,
    unknownBasisUnits: totals.unknownBasisUnits,
    isin: info.isin,
    multiplier: i.multiplier === null ? null : formatExact(i.multiplier),
    reconciliation: { ...mapValues(units, (u) => quantityForPeople(u, info.decimals)), closingUnits: totals.units },
    basis: mapValues(i.basis, usdForPeople),
    exact: { ...totals.exact, reconciliation: mapValues(units, exactText), basis: mapValues(i.basis, exactText) },
  };
}

const bySymbolThenMint =
  (names: InstrumentNames) =>
  (a: InstrumentTotals, b: InstrumentTotals): number => {
    const sa = names.get(a.mint)?.symbol ?? null;
    const sb = names.get(b.mint)?.symbol ?? null;
    if (sa !== sb) return sa === null ? 1 : sb === null ? -1 : sa < sb ? -1 : 1;
    return a.mint < b.mint ? -1 : a.mint > b.mint ? 1 : 0;
  };

/**
 * The statement at the end of `asOf` with each instrument's reconciliation over [from, asOf]
 * (the report derived for the whole tenant with those bounds), one wallet per owner named.
 */
export function holdingsBody(report: LotReport, q: { asOf: string; from: string; owners: readonly string[]; dataset: Dataset }, names: InstrumentNames) {
  const owners = ownedBy(new Set(q.owners));
  return {
    asOf: q.asOf,
    from: q.from,
    dataset: q.dataset,
    treatment: report.treatment,
    method: report.method,
    wallets: q.owners.map((owner) => ({
      owner,
      instruments: report.instruments
        .filter((i) => i.owner === owner)
        .sort(bySymbolThenMint(names))
        .map((i) => holdingShown(i, names)),
    })),
    problems: report.problems.filter(owners).map(problemShown),
  };
}
