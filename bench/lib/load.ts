import autocannon, { type AutocannonResult } from 'autocannon';
import { summarize, type LatencySummary } from './stats.js';

export interface LoadOptions {
  readonly url: string;
  readonly connections: number;
  /** Seconds of measured load; give either this or `amount`. */
  readonly durationSec?: number;
  /** Number of requests instead of a duration. */
  readonly amount?: number;
  /** Fixed overall request rate (req/s). autocannon spends each connection's share at the start of every second. */
  readonly overallRate?: number;
  /** Seconds of unmeasured load first, same connections. */
  readonly warmupSec?: number;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly timeoutSec?: number;
}

export interface LoadResult {
  /** Mean completed requests per second (autocannon's per-second samples). */
  readonly requestsPerSec: number;
  readonly total: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly non2xx: number;
  /** Exact percentiles of every 2xx response time, in ms (not autocannon's 1 ms-resolution histogram). */
  readonly latency: LatencySummary;
  readonly statusCodes: Record<string, number>;
  /** Every 2xx response time, in ms (to pool several runs). */
  readonly samples: readonly number[];
  readonly raw: AutocannonResult;
}

/** Runs autocannon in this process against a loopback URL and summarizes the measured part. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (!/^http:\/\/127\.0\.0\.1[:/]/.test(options.url)) throw new Error(`load only against 127.0.0.1, not ${options.url}`);
  if (!options.durationSec === !options.amount) throw new Error('give exactly one of durationSec and amount');
  const samples: number[] = [];
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    ...(options.durationSec ? { duration: options.durationSec } : { amount: options.amount }),
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    ...(options.warmupSec ? { warmup: { connections: options.connections, duration: options.warmupSec } } : {}),
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
    timeout: options.timeoutSec ?? 10,
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) samples.push(ms);
  });
  const raw = await instance;
  return {
    requestsPerSec: raw.requests.average,
    total: raw.requests.total,
    errors: raw.errors,
    timeouts: raw.timeouts,
    non2xx: raw.non2xx,
    latency: summarize(samples),
    statusCodes: Object.fromEntries(Object.entries(raw.statusCodeStats).map(([code, s]) => [code, s.count])),
    samples,
    raw,
  };
}
