// Instrument lineage (docs/evidence.md#lineage): the identities a mint has carried, the links between them
// (identity changes, spin-offs, transforms, terminations) and where the earliest identity's basis
// sits now. Fractions are exact and always sum to exactly 1.
import type { Classified } from "./classify";
import { add, formatDecimal, mul, ONE, parseDecimal, type Rat, sub, ZERO } from "./numbers";
import type { InstrumentObs } from "./observations";
import { ruleOf } from "./rules";
import type { LineageIdentity, LineageLinkView, LineageRecord } from "./types";

/** The link a classified change writes (each type's entry says which). */
const linkOf = (c: Classified): LineageLinkView["type"] | null => ruleOf(c.type).lineage;

/** Format fractions so that the strings themselves add up to exactly 1: the last takes the rest. */
export function fractionsSummingToOne(parts: Rat[], places = 18): string[] {
  const out: string[] = [];
  let used = ZERO;
  parts.forEach((p, i) => {
    if (i === parts.length - 1) out.push(formatDecimal(sub(ONE, used), places + 2));
    else {
      const s = formatDecimal(p, places);
      out.push(s);
      used = add(used, parseDecimal(s));
    }
  });
  return out;
}

/** `activated` is the mint's classified, activated transitions in activation order. */
export function buildLineage(inst: InstrumentObs, activated: Classified[]): LineageRecord {
  const idChanges = activated.filter((c) => linkOf(c) === "identity_change");
  const identities: LineageIdentity[] = [];
  const first = idChanges[0];
  identities.push({
    symbol: inst.symbol,
    underlying: first ? (first.underlying?.from ?? null) : inst.underlying,
    isin: first ? null : inst.isin,
    validFrom: null,
  });
  idChanges.forEach((c, i) => {
    const last = i === idChanges.length - 1;
    identities.push({
      symbol: inst.symbol,
      underlying: c.underlying?.to ?? (last ? inst.underlying : null),
      isin: last ? inst.isin : null,
      validFrom: c.transition.effectiveAt,
    });
  });
  const label = (id: LineageIdentity): string => id.underlying ?? id.symbol;
  const links: LineageLinkView[] = [];
  let current = 0;
  let kept = ONE; // share of the earliest basis still in the original line (not reinvested distributions)
  let terminated = false;
  for (const c of activated) {
    const here = identities[current]!;
    const link = linkOf(c);
    if (link === "identity_change") {
      const next = identities[current + 1]!;
      links.push({ type: "identity_change", from: label(here), to: label(next), basisFraction: "1", cashFraction: "0", at: c.transition.effectiveAt });
      current++;
    } else if ((link === "spin_off" || link === "transform") && c.distributedFraction) {
      const [b, cash] = fractionsSummingToOne([sub(ONE, c.distributedFraction), c.distributedFraction]);
      links.push({ type: link, from: label(here), to: label(here), basisFraction: b!, cashFraction: cash!, at: c.transition.effectiveAt });
      kept = mul(kept, sub(ONE, c.distributedFraction));
    } else if (link === "terminate") {
      links.push({ type: "terminate", from: label(here), to: null, basisFraction: "0", cashFraction: "1", at: c.transition.effectiveAt });
      terminated = true;
    }
  }
  const now = identities[current]!;
  let basisNowSits: LineageRecord["basisNowSits"];
  if (terminated) basisNowSits = [{ holding: "cash", kind: "cash", fraction: "1" }];
  else if (kept.n === kept.d) basisNowSits = [{ holding: label(now), kind: "position", fraction: "1" }];
  else {
    const [p, d] = fractionsSummingToOne([kept, sub(ONE, kept)]);
    basisNowSits = [
      { holding: label(now), kind: "position", fraction: p! },
      { holding: label(now), kind: "distributed", fraction: d! },
    ];
  }
  return { mint: inst.mint, identities, links, basisNowSits };
}
