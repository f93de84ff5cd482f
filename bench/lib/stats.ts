// Order statistics of the benches' samples, one rule for all: the nearest rank (the smallest
// sample with at least a fraction `q` of the samples at or below it), so a p99 is a sample that
// was measured, never an interpolation. NaN for no samples.

export function quantile(xs: readonly number[], q: number): number {
  if (!xs.length) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export const median = (xs: readonly number[]): number => quantile(xs, 0.5);
