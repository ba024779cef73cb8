/**
 * Summarizes a V8 .cpuprofile (from `node --cpu-prof`): self time by package/file and by function.
 * Run: npx tsx bench/lib/cpu-profile-summary.ts <file.cpuprofile> [topN]
 */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Where a frame's code lives: an npm package, a file of ours, node internals, or a V8 pseudo-frame. */
export function codeOwner(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node internals';
  const ours = /\/(dist|src|bench)\/(.+)$/.exec(url);
  return ours ? `${ours[1]}/${ours[2]}` : url;
}

/** Self time in ms, grouped by `codeOwner` and by function, highest first. */
export function summarizeProfile(profile: CpuProfile): { totalMs: number; byOwner: [string, number][]; byFunction: [string, number][] } {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let totalMs = 0;
  profile.samples.forEach((id, i) => {
    const node = nodes.get(id);
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    const owner = codeOwner(url, functionName);
    totalMs += ms;
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + ms);
    const fn = `${functionName || '(anonymous)'} ${owner}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
  });
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return { totalMs, byOwner: sorted(byOwner), byFunction: sorted(byFunction) };
}

async function main(): Promise<void> {
  const [file, top = '25'] = process.argv.slice(2);
  if (!file) throw new Error('usage: cpu-profile-summary.ts <file.cpuprofile> [topN]');
  const summary = summarizeProfile(JSON.parse(await readFile(file, 'utf8')) as CpuProfile);
  const busy = summary.totalMs - (summary.byOwner.find(([o]) => o === '(idle)')?.[1] ?? 0);
  const line = ([name, ms]: [string, number]) => `${ms.toFixed(0).padStart(8)} ms ${((ms / busy) * 100).toFixed(1).padStart(5)}%  ${name}`;
  process.stdout.write(`profile ${summary.totalMs.toFixed(0)} ms, busy ${busy.toFixed(0)} ms (percentages of busy)\n\nby package/file:\n`);
  process.stdout.write(`${summary.byOwner.slice(0, Number(top)).map(line).join('\n')}\n\nby function:\n`);
  process.stdout.write(`${summary.byFunction.slice(0, Number(top)).map(line).join('\n')}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
