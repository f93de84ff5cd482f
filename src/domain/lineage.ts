// Instrument lineage (docs/evidence.md#lineage): the identities a mint has carried, the links between them
// (identity changes, spin-offs, rights distributions, transforms, terminations) and where the
// earliest identity's basis sits now, each distribution on its own, saying what it distributed
// (src/domain/distributed.ts). Fractions are exact and always sum to exactly 1.
import type { Classified } from "./classified";
import { describeDistributed } from "./distributed";
import { add, formatDecimal, mul, ONE, parseDecimal, type Rat, sub, ZERO } from "./numbers";
import type { InstrumentObs } from "./observations";
import { ruleOf } from "./rules";
import type { BasisHoldingView, LineageIdentity, LineageLinkView, LineageRecord } from "./types";

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

/** A lineage and the link each activated transition wrote, by transition key (an action shows its own). */
export interface LineageBuilt {
  record: LineageRecord;
  linkOf: Map<string, LineageLinkView>;
}

const DISTRIBUTES = new Set<LineageLinkView["type"]>(["spin_off", "rights_distribution", "transform"]);

/** `activated` is the mint's classified, activated transitions in activation order. */
export function buildLineage(inst: InstrumentObs, activated: Classified[]): LineageBuilt {
  const identities = identitiesOf(
    inst,
    activated.filter((c) => linkOf(c) === "identity_change"),
  );
  const label = (id: LineageIdentity): string => id.underlying ?? id.symbol;
  const links: LineageLinkView[] = [];
  const linkByKey = new Map<string, LineageLinkView>();
  const record = (c: Classified, l: LineageLinkView) => {
    links.push(l);
    linkByKey.set(c.transition.key, l);
  };
  // Each distribution's share of the earliest basis: what the line still held, times its fraction.
  const distributions: Distribution[] = [];
  let current = 0;
  let kept = ONE; // share of the earliest basis still in the original line (not reinvested distributions)
  let terminated = false;
  for (const c of activated) {
    const here = identities[current]!;
    const link = linkOf(c);
    if (link === "identity_change") {
      const next = identities[current + 1]!;
      record(c, { type: "identity_change", from: label(here), to: label(next), basisFraction: "1", cashFraction: "0", at: c.transition.effectiveAt });
      current++;
    } else if (link !== null && DISTRIBUTES.has(link) && c.distributedFraction) {
      const [b, cash] = fractionsSummingToOne([sub(ONE, c.distributedFraction), c.distributedFraction]);
      const distributed = describeDistributed(c.type, c.distributed ?? { name: null, namedBy: null }, label(here), inst.symbol);
      const l: LineageLinkView = { type: link, from: label(here), to: label(here), basisFraction: b!, cashFraction: cash!, at: c.transition.effectiveAt, distributed };
      record(c, l);
      distributions.push({ share: mul(kept, c.distributedFraction), link: l });
      kept = mul(kept, sub(ONE, c.distributedFraction));
    } else if (link === "terminate") {
      record(c, { type: "terminate", from: label(here), to: null, basisFraction: "0", cashFraction: "1", at: c.transition.effectiveAt });
      terminated = true;
    }
  }
  const basisNowSits = terminated ? [{ holding: "cash", kind: "cash" as const, fraction: "1" }] : basisHeld(label(identities[current]!), kept, distributions);
  return { record: { mint: inst.mint, identities, links, basisNowSits }, linkOf: linkByKey };
}

/** A distribution's share of the earliest basis, and the link that says what it distributed. */
interface Distribution {
  share: Rat;
  link: LineageLinkView;
}

/** The identities the line carried: the first, then one per identity change (in activation order). */
function identitiesOf(inst: InstrumentObs, idChanges: Classified[]): LineageIdentity[] {
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
  return identities;
}

/** Where the earliest basis sits now in a line that goes on: the line's own share, then each distribution (oldest first). */
function basisHeld(line: string, kept: Rat, distributions: Distribution[]): BasisHoldingView[] {
  if (kept.n === kept.d) return [{ holding: line, kind: "position", fraction: "1" }];
  const fractions = fractionsSummingToOne([kept, ...distributions.map((d) => d.share)]);
  return [
    { holding: line, kind: "position", fraction: fractions[0]! },
    ...distributions.map(({ link }, i) => ({
      holding: link.distributed!.holding,
      kind: "distributed" as const,
      fraction: fractions[i + 1]!,
      distributed: link.distributed!,
      at: link.at,
    })),
  ];
}
