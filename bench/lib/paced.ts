import { Agent, request } from 'node:http';
import { summarize, type LatencySummary } from './stats.js';

/** One request of a paced stream. */
export interface PacedRequest {
  readonly url: string;
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Source address on loopback (127.0.0.0/8), e.g. to appear as several clients. */
  readonly localAddress?: string;
}

export interface PacedOptions {
  /** Requests per second, sent on schedule whether or not earlier ones have answered (open loop). */
  readonly rate: number;
  readonly durationMs: number;
  /** The i-th request (0-based). */
  readonly next: (i: number) => PacedRequest;
  /** Cap on requests in flight; a request due while at the cap counts as `skipped`. */
  readonly maxInFlight?: number;
  readonly timeoutMs?: number;
}

export interface PacedResult {
  readonly sent: number;
  readonly skipped: number;
  readonly errors: number;
  /** Error messages (e.g. timeout, ECONNRESET) with their counts. */
  readonly errorKinds: Record<string, number>;
  readonly statusCodes: Record<string, number>;
  /** Time from each request's scheduled start to its last byte, every status, in ms. */
  readonly latency: LatencySummary;
  /** Every latency sample, in ms, in completion order (to pool several runs). */
  readonly samples: readonly number[];
  /** Achieved send rate while sending, req/s (the wait for the last answers is not counted). */
  readonly achievedRate: number;
}

/**
 * An open-loop, evenly spaced request stream (unlike autocannon's overallRate, which sends each
 * connection's quota back to back at the top of every second). Latency counts from the scheduled
 * time, so a stalled client or server cannot hide queueing (no coordinated omission).
 */
export async function runPaced(options: PacedOptions): Promise<PacedResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxInFlight ?? 256 });
  const intervalMs = 1000 / options.rate;
  const total = Math.floor((options.durationMs / 1000) * options.rate);
  const samples: number[] = [];
  const statusCodes: Record<string, number> = {};
  const errorKinds: Record<string, number> = {};
  let sent = 0, skipped = 0, errors = 0, inFlight = 0;
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    if (inFlight >= (options.maxInFlight ?? 256)) {
      skipped++;
      continue;
    }
    inFlight++;
    sent++;
    pending.push(
      send(agent, options.next(i), options.timeoutMs ?? 10_000).then(
        (status) => {
          samples.push(performance.now() - due);
          statusCodes[status] = (statusCodes[status] ?? 0) + 1;
        },
        (error: Error) => {
          errors++;
          const kind = (error as NodeJS.ErrnoException).code ?? error.message;
          errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
        },
      ).finally(() => void inFlight--),
    );
  }
  const sendingSec = Math.max(performance.now() - start, total * intervalMs) / 1000;
  await Promise.all(pending);
  agent.destroy();
  return { sent, skipped, errors, errorKinds, statusCodes, latency: summarize(samples), samples, achievedRate: sent / sendingSec };
}

function send(agent: Agent, req: PacedRequest, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, ...(req.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(req.body)) }) };
    const outgoing = request(req.url, { method: req.method ?? 'GET', headers, agent, localAddress: req.localAddress, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('timeout')));
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}
