/** Latency percentiles in milliseconds. */
export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/** Nearest-rank percentile (q in 0–100) of an ascending array; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((q / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** p50/p90/p99/max of raw samples (copied and sorted; the input is left alone). */
export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = Float64Array.from(samples).sort();
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length ? (sorted[sorted.length - 1] as number) : Number.NaN,
  };
}

/** `a / b` rounded to two decimals. */
export function ratio(a: number, b: number): number {
  return Math.round((a / b) * 100) / 100;
}

/** A number with at most `digits` decimals, for tables. */
export function fmt(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return 'n/a';
  return Number(value.toFixed(digits)).toLocaleString('en-US', { maximumFractionDigits: digits });
}
