import { describe, expect, it } from 'vitest';
import { codeOwner, summarizeProfile } from '../../../bench/lib/cpu-profile-summary.js';
import { markdownTable } from '../../../bench/lib/results.js';
import { fmt, percentile, ratio, summarize } from '../../../bench/lib/stats.js';

describe('bench stats', () => {
  it('takes nearest-rank percentiles of sorted samples', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile(sorted, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it('summarizes unsorted samples numerically without changing them', () => {
    const samples = [10, 2, 1, 30, 3];
    expect(summarize(samples)).toEqual({ count: 5, p50: 3, p90: 30, p99: 30, max: 30 });
    expect(samples).toEqual([10, 2, 1, 30, 3]);
  });

  it('rounds ratios and formats numbers for tables', () => {
    expect(ratio(2, 3)).toBe(0.67);
    expect(fmt(1234.567)).toBe('1,234.57');
    expect(fmt(Number.NaN)).toBe('n/a');
  });
});

describe('bench results', () => {
  it('writes a markdown table and escapes pipes', () => {
    expect(markdownTable(['a', 'b'], [['x|y', 1]])).toBe('| a | b |\n| --- | --- |\n| x\\|y | 1 |');
  });
});

describe('cpu profile summary', () => {
  it('names the package or file that owns a frame', () => {
    expect(codeOwner('file:///work/main/node_modules/@scope/pkg/index.js', 'f')).toBe('@scope/pkg');
    expect(codeOwner('file:///work/main/node_modules/jsonwebtoken/verify.js', 'f')).toBe('jsonwebtoken');
    expect(codeOwner('node:internal/crypto/keys', 'createPublicKey')).toBe('node internals');
    expect(codeOwner('file:///work/main/dist/adapters/http/route.js', 'handler')).toBe('dist/adapters/http/route.js');
    expect(codeOwner('', '(garbage collector)')).toBe('(garbage collector)');
  });

  it('adds self time per sample to its frame', () => {
    const frame = (id: number, functionName: string, url: string) => ({ id, callFrame: { functionName, url, lineNumber: 0 } });
    const summary = summarizeProfile({
      nodes: [frame(1, '(idle)', ''), frame(2, 'verify', 'file:///x/node_modules/jsonwebtoken/verify.js')],
      samples: [2, 2, 1],
      timeDeltas: [1000, 3000, 500],
    });
    expect(summary.totalMs).toBe(4.5);
    expect(summary.byOwner).toEqual([['jsonwebtoken', 4], ['(idle)', 0.5]]);
  });
});
