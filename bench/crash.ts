/**
 * Crash consistency (DUR-01..05): SIGKILL Stacks at seeded moments during concurrent uploads,
 * registrations and shelf edits; restart on the same data; verify nothing acknowledged is lost and
 * nothing half-written is visible or left behind.
 * Run: npx tsx bench/crash.ts [--cycles 20] [--seed 42] [--from dist|src] [--no-write]
 */
import { parseArgs } from 'node:util';
import { runCrashCycles } from './lib/crash-harness.js';
import { appendResults, markdownTable } from './lib/results.js';
import { buildStacks } from './lib/stacks-server.js';

const { values } = parseArgs({
  options: {
    cycles: { type: 'string', default: '20' },
    seed: { type: 'string', default: '42' },
    from: { type: 'string', default: 'dist' },
    'no-write': { type: 'boolean', default: false },
  },
});
const log = (msg: string) => process.stderr.write(`[bench:crash ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

async function main(): Promise<void> {
  const startedAt = new Date();
  const source = values.from === 'src' ? 'src' : 'dist';
  if (source === 'dist') {
    log('building dist/');
    await buildStacks();
  }
  const cycles = Number(values.cycles);
  const seed = Number(values.seed);
  const t0 = performance.now();
  const report = await runCrashCycles({ cycles, seed, source, log });
  const seconds = (performance.now() - t0) / 1000;
  console.log(report.summary);
  for (const detail of report.violations.details) console.log(`  ${detail}`);
  if (!values['no-write']) {
    const v = report.violations;
    await appendResults({
      title: 'Crash consistency (SIGKILL during concurrent writes)',
      command: `npx tsx bench/crash.ts --cycles ${cycles} --seed ${seed} --from ${source}`,
      startedAt,
      body: [
        `Per cycle: 50 concurrent uploads (seeded EPUB and plain-text files, 10–400 KB, each distinct), 5 registrations, 3 shelf creations, up to 2 shelf PATCHes and 5 PUT additions, all at once; SIGKILL at a seeded moment 0–3000 ms in; restart on the same DATA_DIR, its files dated back past the reconciler's one-hour grace period (the start-up reconciler runs before /readyz); verify; retry the unanswered uploads (each must be 201 or 409).`,
        '',
        markdownTable(
          ['cycles', 'acknowledged writes', 'in flight at a kill', 'book records at the end', 'lost', 'dangling records', 'orphan/temp files', 'duplicates', 'wall time'],
          [[cycles, report.acknowledged, report.unacknowledged, report.records, v.lost, v.dangling, v.orphans, v.duplicates, `${seconds.toFixed(0)} s`]],
        ),
        '',
        `\`${report.summary}\``,
      ].join('\n'),
    });
  }
  const v = report.violations;
  process.exitCode = v.lost + v.dangling + v.orphans + v.duplicates === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 2;
});
