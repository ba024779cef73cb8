import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../../..');
const work = mkdtempSync(join(tmpdir(), 'stacks-startup-modules-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * Every module URL resolved by the server (empty SQLite store) until it logs that it listens, with the
 * pid of the process that resolved it (WORKERS > 1: the primary and each worker).
 */
async function modulesLoadedUntilListening(workers: number): Promise<{ pid: number; modules: { pid: number; url: string }[] }> {
  const log = join(work, `imports-${workers}.log`);
  const hook = pathToFileURL(join(root, 'test/support/record-imports.mjs')).href;
  const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hook)}, { data: { log: ${JSON.stringify(log)}, pid: true } });`)}`;
  const child = spawn(process.execPath, ['--import', register, '--import', 'tsx', join(root, 'src/bootstrap/main.ts')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(work, `data-${workers}`), WORKERS: String(workers), LOG_LEVEL: 'info', JWT_SECRET: 'a test secret of at least thirty-two bytes' },
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
  const modules = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => {
    const [pid, url] = line.split(' ') as [string, string];
    return { pid: Number(pid), url };
  });
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  await exited;
  return { pid: child.pid!, modules };
}

describe('start-up', () => {
  it('loads no image library, worker pool, password hasher or Swagger UI before the first request that needs one', async () => {
    const { modules } = await modulesLoadedUntilListening(1);
    const urls = modules.map((m) => m.url);
    expect(urls.some((u) => u.includes('/src/adapters/sqlite/'))).toBe(true); // control: the hook saw the server start
    expect(urls.some((u) => u.includes('/node_modules/express/'))).toBe(true); // control: it would see a package
    const heavy = urls.filter((u) => /\/node_modules\/(sharp|piscina|bcryptjs|@img|swagger-ui-express|swagger-ui-dist)\//.test(u) || /\/src\/adapters\/(images|metadata\/safe-)/.test(u));
    expect(heavy).toEqual([]);
  }, 60_000);

  it("a cluster's primary loads none of the server (no Express, no routes, no DI container); its workers do", async () => {
    const { pid, modules } = await modulesLoadedUntilListening(2);
    const primary = modules.filter((m) => m.pid === pid).map((m) => m.url);
    const workers = new Set(modules.filter((m) => m.pid !== pid).map((m) => m.pid));
    expect(primary.some((u) => u.includes('/src/adapters/sqlite/'))).toBe(true); // control: the primary opens the store (migrations)
    expect(workers.size).toBe(2);
    const serverModules = (urls: string[]) => urls.filter((u) => /\/node_modules\/(express|tsyringe|jsonwebtoken)\//.test(u) || /\/src\/(adapters\/http|bootstrap\/(server|container|http))\b/.test(u));
    expect(serverModules(primary)).toEqual([]);
    for (const worker of workers) expect(serverModules(modules.filter((m) => m.pid === worker).map((m) => m.url))).not.toEqual([]);
  }, 60_000);
});
