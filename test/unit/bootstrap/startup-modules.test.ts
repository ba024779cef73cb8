import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const work = mkdtempSync(join(tmpdir(), 'stacks-startup-modules-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every module URL resolved by the server (one process, empty SQLite store) until it logs that it listens. */
async function modulesLoadedUntilListening(): Promise<string[]> {
  const log = join(work, 'imports.log');
  const hook = pathToFileURL(join(root, 'test/support/record-imports.mjs')).href;
  const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hook)}, { data: { log: ${JSON.stringify(log)} } });`)}`;
  const child = spawn(process.execPath, ['--import', register, '--import', 'tsx', join(root, 'src/bootstrap/main.ts')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(work, 'data'), WORKERS: '1', LOG_LEVEL: 'info', JWT_SECRET: 'a test secret of at least thirty-two bytes' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((done, fail) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Stacks is listening')) done();
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => fail(new Error(`exited ${code}:\n${out}`)));
  });
  const modules = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  child.kill('SIGKILL');
  return modules;
}

describe('start-up', () => {
  it('loads no image library, worker pool or password hasher before the first request that needs one', async () => {
    const modules = await modulesLoadedUntilListening();
    expect(modules.some((u) => u.includes('/src/adapters/sqlite/'))).toBe(true); // control: the hook saw the server start
    const heavy = modules.filter((u) => /\/node_modules\/(sharp|piscina|bcryptjs|@img)\//.test(u) || /\/src\/adapters\/(images|metadata\/safe-)/.test(u));
    expect(heavy).toEqual([]);
  }, 60_000);
});
