import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** What a throughput comparison needs of a load run, from autocannon (runLoad) or wrk (runWrk). */
export interface ThroughputResult {
  readonly requestsPerSec: number;
  readonly total: number;
  readonly errors: number;
  readonly non2xx: number;
  readonly latency: { readonly p50: number; readonly p99: number; readonly max: number };
}

export interface WrkOptions {
  readonly url: string;
  readonly connections: number;
  readonly durationSec: number;
  readonly headers?: Record<string, string>;
  /** wrk threads (default 1: the generator then takes at most one core's share from the server). */
  readonly threads?: number;
}

// wrk's own summary, as JSON on the last line of its output (latencies in µs).
const REPORT = `done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\n{"requests":%d,"durationUs":%d,"errors":%d,"non2xx":%d,"p50":%d,"p99":%d,"max":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`;

/**
 * Loads a loopback URL with wrk (Debian's `wrk`, C): a generator that costs a fraction of autocannon's CPU
 * per request, for comparisons where the server should have the machine's cores (bench:workers). Needs
 * `wrk` on PATH.
 */
export async function runWrk(options: WrkOptions): Promise<ThroughputResult> {
  if (!/^http:\/\/127\.0\.0\.1[:/]/.test(options.url)) throw new Error(`load only against 127.0.0.1, not ${options.url}`);
  const dir = await mkdtemp(join(tmpdir(), 'stacks-wrk-'));
  try {
    const script = join(dir, 'report.lua');
    await writeFile(script, REPORT);
    const headers = Object.entries(options.headers ?? {}).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
    const args = ['-t', String(options.threads ?? 1), '-c', String(options.connections), '-d', `${options.durationSec}s`, '--timeout', '10s', '-s', script, ...headers, options.url];
    const { stdout } = await promisify(execFile)('wrk', args, { maxBuffer: 1 << 20 });
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as { requests: number; durationUs: number; errors: number; non2xx: number; p50: number; p99: number; max: number };
    return {
      requestsPerSec: report.requests / (report.durationUs / 1e6),
      total: report.requests,
      errors: report.errors,
      non2xx: report.non2xx,
      latency: { p50: report.p50 / 1000, p99: report.p99 / 1000, max: report.max / 1000 },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
