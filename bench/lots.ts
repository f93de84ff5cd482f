// Lot engine benchmark (docs/lots.md#speed): one tenant's year over WALLETS wallets (100) × MINTS
// mints (2). Each wallet buys every EVERY days (7), sells a fifth of its balance every 30th day,
// sends a tenth to the next wallet every 90 days (an own transfer), and every mint pays a
// dividend every 30 days (income lots) with one 1→2 split mid-year. Prints the time of one
// derivation per method and treatment, and the lots, rows and actions it produced.
//   ./node_modules/.bin/bun run bench/lots.ts            (≈ 15,000 movements, 2,600 actions)
//   WALLETS=50 ./node_modules/.bin/bun run bench/lots.ts (half: the time should halve)
import { units } from "../src/domain/book";
import { type ActionEvent, deriveLots, LOT_METHODS, type Movement, TAX_TREATMENTS } from "../src/domain/lots";
import { liftF64, mul, rat, sub } from "../src/domain/numbers";

const WALLETS = Number(process.env.WALLETS ?? 100);
const MINTS = Number(process.env.MINTS ?? 2);
const EVERY = Number(process.env.EVERY ?? 7);
const DAY = 86_400_000;
const T0 = Date.parse("2025-01-01T00:00:00Z");
const D = 8;

const movements: Movement[] = [];
const actions: ActionEvent[] = [];
for (let m = 0; m < MINTS; m++) {
  const mint = `Mint${m}`;
  // The multiplier path: a dividend every 30 days (day 15, 45, …) and a 1→2 split on day 180.
  const changes: { day: number; to: number; split: boolean }[] = [];
  for (let day = 15; day < 365; day += 30) changes.push({ day, to: 0, split: false });
  changes.push({ day: 180, to: 0, split: true });
  changes.sort((a, b) => a.day - b.day);
  let current = 1;
  for (const c of changes) current = c.to = c.split ? current * 2 : current * (1.002 + m * 0.0001);
  const multiplierAt = (day: number): number => [...changes].reverse().find((c) => c.day <= day)?.to ?? 1;
  for (let w = 0; w < WALLETS; w++) {
    const owner = `Wallet${w}`;
    const next = `Wallet${(w + 1) % WALLETS}`;
    let raw = 0n;
    for (let day = 0; day < 365; day++) {
      const at = T0 + day * DAY + 3_600_000 + w * 1000 + m;
      const multiplier = liftF64(multiplierAt(day));
      if (day % EVERY === 0) {
        const amount = BigInt(10_000_000 + ((w * 7 + day) % 13) * 1_000_000);
        movements.push({ owner, mint, at, signature: `b-${m}-${w}-${day}`, rawDelta: amount, multiplier, decimals: D, usd: rat(BigInt(100 + ((w + day) % 50)), 1n), reason: null, counterpart: null });
        raw += amount;
      }
      if (day % 30 === 29 && raw > 0n) {
        const amount = raw / 5n;
        movements.push({
          owner,
          mint,
          at: at + 1,
          signature: `s-${m}-${w}-${day}`,
          rawDelta: -amount,
          multiplier,
          decimals: D,
          usd: rat(BigInt(80 + (day % 40)), 1n),
          reason: null,
          counterpart: null,
        });
        raw -= amount;
      }
      if (day % 90 === 20 && raw > 0n) {
        const amount = raw / 10n;
        const sig = `o-${m}-${w}-${day}`;
        movements.push({ owner, mint, at: at + 2, signature: sig, rawDelta: -amount, multiplier, decimals: D, usd: null, reason: "transfer", counterpart: next });
        movements.push({ owner: next, mint, at: at + 2, signature: sig, rawDelta: amount, multiplier, decimals: D, usd: null, reason: "transfer", counterpart: owner });
        raw -= amount;
      }
    }
  }
  // Actions need each wallet's raw at the activation: replay the movements of this mint.
  const mine = movements.filter((x) => x.mint === mint).sort((a, b) => a.at - b.at);
  let before = 1;
  for (const c of changes) {
    const at = T0 + c.day * DAY;
    const held = new Map<string, bigint>();
    for (const x of mine) if (x.at < at) held.set(x.owner, (held.get(x.owner) ?? 0n) + x.rawDelta);
    const mOld = liftF64(before);
    const mNew = liftF64(c.to);
    for (const [owner, r] of held) {
      if (r <= 0n) continue;
      const u0 = units(r, mOld, D);
      const u1 = units(r, mNew, D);
      actions.push({
        owner,
        mint,
        actionId: `${mint}-${c.day}-${owner}`,
        at,
        type: c.split ? "forward_split" : "cash_dividend",
        treatment: c.split ? "quantity_basis" : "income",
        category: c.split ? "basis" : "income",
        multiplierOld: mOld,
        multiplierNew: mNew,
        unitsBefore: u0,
        unitsAfter: u1,
        incomeUnits: c.split ? rat(0) : sub(u1, u0),
        usd: c.split ? null : mul(u0, rat(35, 100)),
        proceedsUsd: null,
      });
    }
    before = c.to;
  }
}

console.log(`${movements.length} movements, ${actions.length} actions, ${WALLETS} wallets × ${MINTS} mints`);
// LOTS_ONLY=income:fifo runs one combination (for profiling).
const only = process.env.LOTS_ONLY?.split(":");
for (const treatment of TAX_TREATMENTS) {
  for (const method of LOT_METHODS) {
    if (only && (only[0] !== treatment || only[1] !== method)) continue;
    // CPU time beside wall time: on a shared machine the wall time mostly measures the neighbours.
    const start = performance.now();
    const cpu = process.cpuUsage();
    const r = deriveLots({ movements, actions }, { method, treatment });
    const used = process.cpuUsage(cpu);
    const wall = performance.now() - start;
    const cpuMs = (used.user + used.system) / 1000;
    console.log(
      `${treatment.padEnd(8)} ${method.padEnd(7)} ${wall.toFixed(0).padStart(6)} ms wall ${cpuMs.toFixed(0).padStart(6)} ms CPU  ${r.lots.length} open lots, ${r.realized.length} rows, ${r.actions.length} actions, ${r.problems.length} problems`,
    );
  }
}
