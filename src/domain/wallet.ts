// Per wallet: the actions of every mint it held at an activation, their journal bookings, the
// replayed positions and yields. Reads the per-mint context the engine built once.
import { plainAction, transitionAction } from "./actions";
import { balanceHistory, rawAt } from "./balances";
import { bookTransition, units } from "./book";
import { announcedType } from "./classify";
import type { MintContext } from "./engine";
import { bookingFor } from "./journal";
import { buildLifecycle } from "./lifecycle";
import { MATCH_WINDOW_SECONDS } from "./match";
import { eq, formatExact, liftF64, ONE, sub, ZERO } from "./numbers";
import { buildPosition, type ReplayAction } from "./positions";
import { currentRevision } from "./revisions";
import { isoFromUnix, unixFromIso } from "./time";
import type { ActionRecord, ActionType, EngineWallet, JournalBooking, PositionRecord, YieldRecord } from "./types";
import { buildYields, type YieldAction } from "./yield";

export interface ActionRecordParts {
  actions: ActionRecord[];
  bookings: JournalBooking[];
  positions: PositionRecord[];
  yields: YieldRecord[];
}

export interface WalletContext {
  now: number;
  firstObservedActive: Record<string, string>;
}

const TERMINATION = new Set<ActionType>(["cash_merger", "mixed_merger", "redemption", "delisting"]);

export function assembleWallet(w: EngineWallet, contexts: Map<string, MintContext>, wc: WalletContext, out: ActionRecordParts): void {
  const mints = new Set<string>([...w.accounts.map((a) => a.mint), ...w.balanceChanges.map((c) => c.mint)]);
  for (const mint of [...mints].sort()) {
    const ctx = contexts.get(mint);
    if (!ctx) continue;
    const h = balanceHistory(w.owner, mint, w.accounts, w.balanceChanges);
    const replay: ReplayAction[] = [];
    const yieldActs: YieldAction[] = [];

    for (const t of ctx.transitions) {
      const raw = rawAt(h, t.effectiveAtUnix);
      if (raw <= 0n) continue;
      const c = ctx.classified.get(t.key)!;
      const facts = bookTransition(c, raw, ctx.decimals);
      const event = c.match.kind === "matched" ? c.match.event : null;
      const firstSeen = wc.firstObservedActive[t.key] ?? null;
      // Nothing in a lifecycle depends on the wallet: build it once per transition.
      let lifecycle = ctx.lifecycles.get(t.key);
      if (!lifecycle) {
        lifecycle = buildLifecycle({ transition: t, event, matchedVersion: c.revision?.record.version ?? null, firstObservedActiveAt: firstSeen, now: wc.now });
        ctx.lifecycles.set(t.key, lifecycle);
      }
      const a = transitionAction({
        owner: w.owner,
        symbol: ctx.symbol,
        decimals: ctx.decimals,
        raw,
        c,
        facts,
        event,
        lifecycle,
        firstObservedActiveAt: firstSeen,
      });
      out.actions.push(a);
      const delta = facts.delta;
      // Income types book the whole delta as income units, already formatted on the action.
      const unitsDelta = delta === facts.incomeUnits || eq(delta, facts.incomeUnits) ? a.incomeUnits : formatExact(delta);
      const b = bookingFor(a, unitsDelta, formatExact(sub(delta, facts.incomeUnits)));
      if (!b) continue;
      out.bookings.push(b);
      replay.push({
        at: t.effectiveAtUnix,
        type: c.type,
        treatment: a.treatment,
        facts,
        usd: facts.usd,
        v1Unclassified: a.v1.kind === "unclassified_adjustment",
        terminates: TERMINATION.has(c.type),
      });
      yieldActs.push({ at: t.effectiveAtUnix, type: c.type, treatment: a.treatment, scale: facts.scale, incomeUnits: facts.incomeUnits, usd: facts.usd, cashPerShare: c.cashPerShare });
    }

    // Custody transfers: the permanent delegate moved tokens out without the owner's signature.
    for (const ch of h.changes) {
      if (!(ch.byPermanentDelegate === true && ch.ownerSigned === false && ch.postRaw < ch.preRaw)) continue;
      const m = liftF64(ctx.multiplierAt(ch.blockTime));
      const key = `${mint}:${ch.signature}:seizure:${ch.tokenAccount}`;
      const a = plainAction({
        owner: w.owner,
        mint,
        symbol: ctx.symbol,
        decimals: ctx.decimals,
        key,
        type: "seizure",
        reason: "custody transfer by the permanent delegate without the owner's signature: not a sale, not a withdrawal",
        raw: ch.preRaw,
        unitsBefore: units(ch.preRaw, m, ctx.decimals),
        unitsAfter: units(ch.postRaw, m, ctx.decimals),
        effectiveAt: isoFromUnix(ch.blockTime),
        event: null,
        revision: null,
        lifecycle: { state: "activated", steps: [{ state: "activated", at: isoFromUnix(ch.blockTime), revision: null, supersedes: null, note: "tokens moved by the permanent delegate" }] },
        chain: {
          signature: ch.signature,
          slot: ch.slot,
          blockTime: isoFromUnix(ch.blockTime),
          multiplierOld: formatExact(m),
          multiplierNew: formatExact(m),
          scheduledAt: null,
          effectiveAt: isoFromUnix(ch.blockTime),
          updateSignature: null,
        },
      });
      out.actions.push(a);
      const delta = sub(units(ch.postRaw, m, ctx.decimals), units(ch.preRaw, m, ctx.decimals));
      const b = bookingFor(a, formatExact(delta), formatExact(delta));
      if (b) out.bookings.push(b);
      replay.push({
        at: ch.blockTime,
        type: "seizure",
        treatment: "not_booked",
        facts: { u0: units(ch.preRaw, m, ctx.decimals), u1: units(ch.postRaw, m, ctx.decimals), delta, incomeUnits: ZERO, scale: ONE, principalAdd: ZERO, usd: null, proceedsUsd: null, warnings: [] },
        usd: null,
        v1Unclassified: true,
        terminates: false,
      });
    }

    // Issuer events announced for a mint the wallet holds, with nothing on chain yet.
    if (h.reported > 0n) {
      for (const ev of ctx.events) {
        if (ctx.matchedEvents.has(ev.eventId)) continue;
        const cur = currentRevision(ev);
        const ref = cur ?? ev.revisions[ev.revisions.length - 1]!;
        const effs = ev.revisions.map((r) => unixFromIso(r.record.effectiveTimeUtc)).filter((x): x is number => x !== null);
        const latestEff = effs.length ? Math.max(...effs) : null;
        if (latestEff !== null && latestEff < wc.now - MATCH_WINDOW_SECONDS) continue; // past and never executed
        const m = liftF64(ctx.multiplierNow);
        const q = units(h.reported, m, ctx.decimals);
        const type = cur ? announcedType(cur) : announcedType(ref);
        out.actions.push(
          plainAction({
            owner: w.owner,
            mint,
            symbol: ctx.symbol,
            decimals: ctx.decimals,
            key: `issuer:${ev.eventId}`,
            type,
            reason: cur ? `announced by the issuer (${cur.record.caType} v${cur.record.version}); nothing on chain yet` : "announced by the issuer, then cancelled",
            raw: h.reported,
            unitsBefore: q,
            unitsAfter: q,
            effectiveAt: cur?.record.effectiveTimeUtc ?? null,
            event: ev,
            revision: cur,
            lifecycle: buildLifecycle({ transition: null, event: ev, matchedVersion: null, firstObservedActiveAt: null, now: wc.now }),
          }),
        );
      }
    }

    const extra: string[] = [];
    if (ctx.stateProblem) extra.push(ctx.stateProblem);
    if (!ctx.decimalsKnown) extra.push("decimals unknown: 8 assumed");
    const pos = buildPosition({
      owner: w.owner,
      mint,
      symbol: ctx.symbol,
      decimals: ctx.decimals,
      history: h,
      multiplierAt: ctx.multiplierAt,
      multiplierNow: ctx.multiplierNow,
      actions: replay,
      gaps: w.gaps,
      extraProblems: extra,
    });
    out.positions.push(pos);
    out.yields.push(
      ...buildYields({
        owner: w.owner,
        mint,
        symbol: ctx.symbol,
        decimals: ctx.decimals,
        now: wc.now,
        history: h,
        multiplierAt: ctx.multiplierAt,
        actions: yieldActs,
        coverageProblem: pos.status === "partial" ? pos.statusReason : null,
      }),
    );
  }
}
