// The order the benches measure several servers (or source trees) in, round after round: as given,
// then reversed every other round, so that none always runs first or last, right after another's
// load or warm-up (bench/http.ts, http-alternate.ts, http-inprocess.ts).

export function inTurn<T>(sides: readonly T[], round: number): readonly T[] {
  return round % 2 ? [...sides].reverse() : sides;
}
