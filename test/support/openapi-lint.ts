import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { servedOpenApi } from './served-openapi.js';

const ROOT = resolve(import.meta.dirname, '../..');
const REDOCLY = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
const NO_NETWORK = pathToFileURL(join(ROOT, 'test/support/no-network.mjs')).href;

/**
 * The document as a deployment serves it: PUBLIC_URL set (the default, http://localhost:PORT, is what
 * Redocly's no-server-example.com rule rightly flags in a published document). home.arpa is the name
 * space reserved for home networks (RFC 8375).
 */
export const LINTED_ENV = { PUBLIC_URL: 'https://stacks.home.arpa' };

export interface LintProblem {
  readonly ruleId: string;
  readonly severity: string;
  readonly message: string;
  readonly pointer: string;
}

export interface LintReport {
  readonly problems: readonly LintProblem[];
  /** What the CLI wrote to stderr, including `NETWORK ATTEMPT: ...` lines from the no-network guard. */
  readonly stderr: string;
}

interface RedoclyJson {
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

/**
 * Lints a document with Redocly CLI and the committed redocly.yaml (`recommended`), offline: telemetry
 * and update notices off, and the CLI runs under the no-network guard.
 */
export async function lintOpenApi(document: object): Promise<LintReport> {
  const dir = mkdtempSync(join(tmpdir(), 'stacks-openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
    const args = ['--import', NO_NETWORK, REDOCLY, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format=json'];
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    // Redocly exits 1 when it finds an error: the report on stdout is what counts.
    const { stdout, stderr } = await promisify(execFile)(process.execPath, args, { cwd: ROOT, env, maxBuffer: 64 << 20 })
      .catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? String(error) }));
    if (!stdout.trim().startsWith('{')) throw new Error(`redocly lint gave no report:\n${stderr}`);
    const report = JSON.parse(stdout) as RedoclyJson;
    const problems = report.problems.map((p) => ({ ruleId: p.ruleId, severity: p.severity, message: p.message, pointer: p.location[0]?.pointer ?? '' }));
    return { problems, stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts the service, fetches /openapi.json and lints it. */
export async function lintServedOpenApi(): Promise<LintReport> {
  return lintOpenApi(await servedOpenApi(LINTED_ENV));
}

export const describeProblem = (p: LintProblem) => `${p.severity} ${p.ruleId} at ${p.pointer}: ${p.message}`;

/** `npm run lint:openapi`: exits 1 on any error or warning. */
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { problems, stderr } = await lintServedOpenApi();
  const attempts = stderr.split('\n').filter((line) => line.startsWith('NETWORK ATTEMPT'));
  for (const line of [...problems.map(describeProblem), ...attempts]) process.stdout.write(`${line}\n`);
  process.stdout.write(`/openapi.json: ${problems.length} problem(s) with redocly.yaml (recommended)\n`);
  process.exitCode = problems.length + attempts.length > 0 ? 1 : 0;
}
