import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Minimum safe versions from security-bar.md section 4; `line` limits a rule to one major line. */
export interface Minimum { readonly name: string; readonly min: string; readonly line?: string }

export const MINIMUMS: readonly Minimum[] = [
  { name: 'jsonwebtoken', min: '9.0.3' },
  { name: 'jws', min: '4.0.1', line: '4' }, { name: 'jws', min: '3.2.3', line: '3' },
  { name: 'express', min: '5.2.0' },
  { name: 'path-to-regexp', min: '8.4.0', line: '8' }, { name: 'path-to-regexp', min: '0.1.12', line: '0.1' },
  { name: 'qs', min: '6.14.1' },
  { name: 'body-parser', min: '2.2.1' },
  { name: 'multer', min: '2.5.0' },
  { name: 'busboy', min: '1.0.0' },
  { name: 'bcryptjs', min: '3.0.3' },
  { name: 'openid-client', min: '6.8.0' },
  { name: 'yauzl', min: '3.2.1' },
  { name: 'fast-xml-parser', min: '5.12.1' },
  { name: 'xml2js', min: '0.5.0' },
  { name: 'adm-zip', min: '0.6.0' },
  { name: 'jszip', min: '3.8.0' },
  { name: 'pdfjs-dist', min: '4.2.67' },
  { name: 'mongoose', min: '8.9.5' },
  { name: 'cookie', min: '0.7.0' },
  { name: 'send', min: '0.19.0' },
  { name: 'serve-static', min: '1.16.0' },
  { name: 'cors', min: '2.8.6' },
  { name: 'helmet', min: '8.0.0' },
  { name: 'jose', min: '4.15.5' },
];

/** Compares two semver strings by major.minor.patch (pre-release tags sort below the release). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = '', pre] = v.replace(/^v/, '').split('+')[0]!.split(/-(.*)/s);
    return { nums: core.split('.').map((n) => Number.parseInt(n, 10) || 0), pre: pre ?? null };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) if ((x.nums[i] ?? 0) !== (y.nums[i] ?? 0)) return (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
  if (x.pre === y.pre) return 0;
  return x.pre === null ? 1 : y.pre === null ? -1 : x.pre < y.pre ? -1 : 1;
}

const onLine = (version: string, line?: string) => !line || version === line || version.startsWith(`${line}.`);

/** Every installed copy of every package, from `npm ls --all --json`. */
export function installedPackages(cwd = process.cwd()): Array<{ name: string; version: string; path: string }> {
  let raw: string;
  try {
    raw = execFileSync('npm', ['ls', '--all', '--json'], { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (error) {
    raw = String((error as { stdout?: string }).stdout ?? ''); // npm ls exits non-zero on peer warnings but still prints the tree
  }
  const out: Array<{ name: string; version: string; path: string }> = [];
  const walk = (deps: Record<string, { version?: string; dependencies?: Record<string, unknown> }> | undefined, trail: string) => {
    for (const [name, node] of Object.entries(deps ?? {})) {
      if (node.version) out.push({ name, version: node.version, path: `${trail} > ${name}` });
      walk(node.dependencies as never, `${trail} > ${name}`);
    }
  };
  walk((JSON.parse(raw) as { dependencies?: never }).dependencies, 'stacks');
  return out;
}

/** The installed copies below their minimum safe version. */
export function belowMinimum(installed: ReadonlyArray<{ name: string; version: string; path: string }>): string[] {
  return installed.flatMap((p) => MINIMUMS.filter((m) => m.name === p.name && onLine(p.version, m.line) && compareVersions(p.version, m.min) < 0)
    .map((m) => `${p.name}@${p.version} < ${m.min} (${p.path})`));
}

/** Lockfile entries resolved from anywhere but the npm registry (entries without `resolved` are accepted). */
export function nonRegistrySources(lockPath = 'package-lock.json'): string[] {
  const lock = JSON.parse(readFileSync(lockPath, 'utf8')) as { packages?: Record<string, { resolved?: string; version?: string; link?: boolean }> };
  return Object.entries(lock.packages ?? {})
    .filter(([key, p]) => key !== '' && (p.link === true || !/^\d+\.\d+\.\d+/.test(p.version ?? '')
      || (p.resolved !== undefined && !/^https:\/\/registry\.npmjs\.org\/.+\.tgz$/.test(p.resolved))))
    .map(([key, p]) => `${key}: ${p.resolved ?? p.version}`);
}
