import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadOrCreateJwtSecret } from '../../../src/adapters/identity/jwt-secret.js';

describe('loadOrCreateJwtSecret', () => {
  let root: string;
  let dataDir: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'stacks-secret-'));
    dataDir = join(root, 'data');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('returns a configured secret and writes nothing', () => {
    const configured = 'configured-secret-configured-secret-0123';
    expect(loadOrCreateJwtSecret(dataDir, configured)).toEqual({ secret: configured, generated: false, insecureMode: false });
    expect(() => statSync(dataDir)).toThrow();
  });

  it('generates 48 random bytes, base64url, in a 0600 file', () => {
    const first = loadOrCreateJwtSecret(dataDir);
    expect(first.generated).toBe(true);
    expect(first.insecureMode).toBe(false);
    expect(first.secret).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(Buffer.from(first.secret, 'base64url')).toHaveLength(48);
    const file = join(dataDir, 'jwt-secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.secret);
    expect(readdirSync(dataDir)).toEqual(['jwt-secret']);
  });

  it('keeps the same secret across restarts and differs between data directories', () => {
    const first = loadOrCreateJwtSecret(dataDir);
    const again = loadOrCreateJwtSecret(dataDir);
    expect(again).toEqual({ secret: first.secret, generated: false, insecureMode: false });
    expect(loadOrCreateJwtSecret(join(root, 'other')).secret).not.toBe(first.secret);
  });

  it('reads a secret an operator put there, trimmed, and flags a group/world-readable file', () => {
    loadOrCreateJwtSecret(dataDir);
    const file = join(dataDir, 'jwt-secret');
    writeFileSync(file, `${'k'.repeat(40)}\n`);
    chmodSync(file, 0o644);
    expect(loadOrCreateJwtSecret(dataDir)).toEqual({ secret: 'k'.repeat(40), generated: false, insecureMode: true });
  });

  it('refuses a file holding fewer than 32 bytes', () => {
    loadOrCreateJwtSecret(dataDir);
    writeFileSync(join(dataDir, 'jwt-secret'), 'short\n');
    expect(() => loadOrCreateJwtSecret(dataDir)).toThrow(/fewer than 32 bytes/);
  });

  it('does not follow a symlink in place of the file', () => {
    loadOrCreateJwtSecret(join(root, 'elsewhere'));
    loadOrCreateJwtSecret(dataDir);
    rmSync(join(dataDir, 'jwt-secret'));
    symlinkSync(join(root, 'elsewhere', 'jwt-secret'), join(dataDir, 'jwt-secret'));
    expect(() => loadOrCreateJwtSecret(dataDir)).toThrow(/JWT secret file/);
  });

  it('agrees on one secret when several processes start at once', async () => {
    const module = new URL('../../../src/adapters/identity/jwt-secret.ts', import.meta.url).href;
    const script = `const { loadOrCreateJwtSecret } = await import(${JSON.stringify(module)});
      console.log(JSON.stringify(loadOrCreateJwtSecret(${JSON.stringify(dataDir)})));`;
    const runs = await Promise.all(
      Array.from({ length: 6 }, () => promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script])),
    );
    const results = runs.map((r) => JSON.parse(r.stdout) as { secret: string; generated: boolean });
    expect(new Set(results.map((r) => r.secret)).size).toBe(1);
    expect(results.filter((r) => r.generated)).toHaveLength(1);
    expect(readdirSync(dataDir)).toEqual(['jwt-secret']);
  });
});
