// A pure function of a string, remembered for the strings it was asked about: the same Host
// header, socket address and wallet arrive on request after request. Bounded: once `max` strings
// are remembered the memory is cleared, so a flood of distinct strings costs at most that much.
export function remembered<T>(f: (s: string) => T, max = 1000): (s: string) => T {
  const seen = new Map<string, T>();
  return (s) => {
    let v = seen.get(s);
    if (v === undefined && !seen.has(s)) {
      if (seen.size >= max) seen.clear();
      seen.set(s, (v = f(s)));
    }
    return v as T;
  };
}
