import { execFileSync } from 'node:child_process';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { cpus, totalmem, availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

/** bench/RESULTS.md, shared by every benchmark: sections are only ever appended. */
export const RESULTS_FILE = fileURLToPath(new URL('../RESULTS.md', import.meta.url));

const HEADER = `# Benchmark results

Each section is one run of one script, appended by the script itself (\`bench/lib/results.ts\`).
Figures from different runs are not comparable on this noisy machine; compare the ratios within a section.
`;

/** Where and on what a run happened. */
export interface MachineInfo {
  readonly nproc: number;
  readonly memory: string;
  readonly cpuModel: string;
  readonly node: string;
  readonly commit: string;
}

export function machineInfo(): MachineInfo {
  let commit = 'unknown';
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    // What a run executes: the service, the benchmarks and the test helpers they import.
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'bench', 'test/support'], { encoding: 'utf8' }).trim() !== '';
    commit = dirty ? `${head} + uncommitted changes in src/, bench/ or test/support/` : head;
  } catch {
    // not a git checkout
  }
  return {
    nproc: availableParallelism(),
    memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    commit,
  };
}

/** A GitHub markdown table; cells are escaped for `|`. */
export function markdownTable(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cell = (v: string | number) => String(v).replace(/\|/g, '\\|');
  const line = (cells: readonly (string | number)[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

export interface ResultSection {
  /** Section title without the leading `## `. */
  readonly title: string;
  /** The exact command that produced it. */
  readonly command: string;
  readonly startedAt: Date;
  /** Markdown: tables, target lines, notes. */
  readonly body: string;
}

/** Appends a dated section with the machine description to bench/RESULTS.md (creates the file if absent). */
export async function appendResults(section: ResultSection, machine: MachineInfo = machineInfo()): Promise<void> {
  const existing = await readFile(RESULTS_FILE, 'utf8').catch(() => null);
  if (existing === null) await writeFile(RESULTS_FILE, HEADER, { flag: 'wx' }).catch(() => undefined);
  const text = [
    '',
    `## ${section.title}`,
    '',
    `- Date: ${section.startedAt.toISOString()}`,
    `- Machine: ${machine.nproc} CPUs (${machine.cpuModel}), ${machine.memory} RAM, Node ${machine.node}`,
    `- Code: ${machine.commit}`,
    `- Command: \`${section.command}\``,
    '',
    section.body.trim(),
    '',
  ].join('\n');
  await appendFile(RESULTS_FILE, text);
}
