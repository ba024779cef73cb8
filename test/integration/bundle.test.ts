import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `npm start` runs the server bundled by scripts/bundle.mjs (dist/bundle/main.js). Here the same script
// bundles it straight from src/ (no tsc run) into a folder inside the repository, whose node_modules
// hold the packages left outside the bundle; then that bundle is started as its own process.
const root = resolve(import.meta.dirname, '../..');
mkdirSync(join(root, 'test-output'), { recursive: true });
const outdir = mkdtempSync(join(root, 'test-output', 'bundle-'));
const dataDirs: string[] = [];

beforeAll(async () => {
  await promisify(execFile)(process.execPath, [join(root, 'scripts/bundle.mjs'), '--from', 'src', '--outdir', outdir], { cwd: root });
}, 120_000);

afterAll(() => {
  rmSync(outdir, { recursive: true, force: true });
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** The bundle as its own process on a free port; resolves once it logs 'Stacks is listening'. */
async function startBundle(workers: number) {
  const dataDir = mkdtempSync(join(root, 'test-output', 'bundle-data-'));
  dataDirs.push(dataDir);
  const child = spawn(process.execPath, [join(outdir, 'main.js')], {
    cwd: dataDir,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, WORKERS: String(workers), LOG_LEVEL: 'info', BCRYPT_COST: '4' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const port = await new Promise<number>((done, fail) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const listening = out.split('\n').find((line) => line.includes('Stacks is listening'));
      if (listening) done(Number(/"port":(\d+)/.exec(listening)?.[1]));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => fail(new Error(`exited ${code} before listening:\n${out}`)));
  });
  return { base: `http://127.0.0.1:${port}`, child, exited, output: () => out };
}

describe.each([1, 2])('the bundled server (npm start), WORKERS=%i', (workers) => {
  it('answers, hashes a password and reads an upload in its bundled worker threads, serves /docs and /openapi.json, and exits 0 on SIGTERM', async () => {
    const server = await startBundle(workers);
    try {
      expect((await fetch(`${server.base}/readyz`)).status).toBe(200);
      const registered = await fetch(`${server.base}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'bundled', email: 'bundled@example.test', password: 'correct horse battery' }),
      });
      expect(registered.status).toBe(201); // the bcrypt worker thread (bcrypt-worker.js beside main.js)
      const { access_token: token } = (await registered.json()) as { access_token: string };

      const form = new FormData();
      form.append('file', new Blob(['It was a wall. It did not look important.\n'.repeat(50)], { type: 'text/plain' }), 'Ursula K. Le Guin - The Dispossessed.txt');
      const uploaded = await fetch(`${server.base}/api/books`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
      expect(uploaded.status).toBe(201); // the metadata worker thread (metadata-worker.js beside main.js)
      expect(await uploaded.json()).toMatchObject({ title: 'The Dispossessed', authors: ['Ursula K. Le Guin'] });

      const docs = await fetch(`${server.base}/docs/`);
      expect(docs.status).toBe(200); // Swagger UI, loaded from node_modules at this first request
      expect(await docs.text()).toContain('swagger-ui');
      const document = (await (await fetch(`${server.base}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
      expect(document.openapi).toBe('3.1.0');
      expect(Object.keys(document.paths)).toContain('/api/books');
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
    expect(server.output()).not.toMatch(/"level":(50|60)/); // no error or fatal line
  }, 120_000);
});

/** A port free a moment ago (the server must listen on a known port before it logs it). */
function freePort(): Promise<number> {
  return new Promise((done) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => done(port));
    });
  });
}

describe('the bundled server with WORKERS=2, stopped while a worker still starts', () => {
  it('exits (never waits forever), every worker with it, when SIGTERM reaches the primary as the first worker answers (10 times)', async () => {
    // A worker caught in the last moments of its start once lost the signal (the start-up SIGTERM
    // listener was removed before the draining one was added, closing the signal watcher with the
    // signal still undelivered): it served on, and the primary waited for it forever.
    for (let cycle = 0; cycle < 10; cycle++) {
      const dataDir = mkdtempSync(join(root, 'test-output', 'bundle-data-'));
      dataDirs.push(dataDir);
      const port = await freePort();
      const child = spawn(process.execPath, [join(outdir, 'main.js')], {
        cwd: dataDir,
        env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, WORKERS: '2', LOG_LEVEL: 'warn', BCRYPT_COST: '4' },
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      let status = 0;
      while (status !== 200 && child.exitCode === null) {
        status = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 0);
        if (status !== 200) await new Promise((r) => setTimeout(r, 5));
      }
      child.kill('SIGTERM');
      // Hangs here (until the test's timeout) when a worker lost the signal. 1 is an exit too: a worker
      // the signal reached before Node ran any of its code died of it, which the primary counts as unclean.
      expect([0, 1], `cycle ${cycle}`).toContain(await exited);
    }
  }, 300_000);
});
