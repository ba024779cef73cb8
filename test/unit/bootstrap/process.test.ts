import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const MAIN = join(import.meta.dirname, '../../../src/bootstrap/main.ts');
const children: ChildProcess[] = [];
const dirs: string[] = [];

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', BCRYPT_COST: '4', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 15 s:\n${out}`)), 15_000);
    child.on('exit', () => clearTimeout(timer));
    child.stdout!.on('data', () => {
      const m = /"port":(\d+)/.exec(out);
      if (m && out.includes('Stacks is listening')) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
  });
  return { child, exited, listening, output: () => out };
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'stacks-proc-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the process', () => {
  it('stops at start with a message naming a wrong variable', async () => {
    const p = start({ PORT: 'eighty', DATA_DIR: tempDir() });
    expect(await p.exited).toBe(1);
    expect(p.output()).toMatch(/PORT: /);
  });

  it('serves on the embedded store, keeps a generated secret 0600, and exits 0 on SIGTERM after finishing requests', async () => {
    const dataDir = tempDir();
    const p = start({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir });
    const port = await p.listening;
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    const { statSync } = await import('node:fs');
    expect(statSync(join(dataDir, 'jwt-secret')).mode & 0o777).toBe(0o600);
    const inFlight = fetch(`http://127.0.0.1:${port}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'late', email: 'late@example.test', password: 'long enough pw' }),
    });
    await new Promise((r) => setTimeout(r, 5));
    p.child.kill('SIGTERM');
    expect((await inFlight).status).toBe(201);
    expect(await p.exited).toBe(0);
    expect(p.output()).not.toMatch(/long enough pw/);
  });
});
