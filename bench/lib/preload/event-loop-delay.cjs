// Bench-only preload (node --require): samples the server's event-loop delay and appends one JSON
// line per interval to $STACKS_ELD_FILE: {"at": ms, "p50": ms, "p99": ms, "max": ms}, each the delay
// beyond the 10 ms sampling timer (the histogram itself counts the timer's own interval). No route, no src change.
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { appendFileSync } = require('node:fs');

const file = process.env.STACKS_ELD_FILE;
if (file) {
  const RESOLUTION_MS = 10;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const ms = (ns) => Math.max(0, Math.round(ns / 1e4) / 100 - RESOLUTION_MS);
  setInterval(() => {
    appendFileSync(file, `${JSON.stringify({ at: Date.now(), p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) })}\n`);
    histogram.reset();
  }, Number(process.env.STACKS_ELD_INTERVAL_MS ?? 5000)).unref();
}
