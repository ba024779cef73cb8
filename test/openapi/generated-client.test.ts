import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer, listen, stopServer } from '../../src/adapters/http/http-server.js';
import { buildEpub } from '../support/fixtures/index.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';

const ROOT = resolve(import.meta.dirname, '../..');
const NO_NETWORK = pathToFileURL(join(ROOT, 'test/support/no-network.mjs')).href;
const OPENAPI_TYPESCRIPT = join(ROOT, 'node_modules/openapi-typescript/bin/cli.js');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
/** The user's project: strict TypeScript, ES modules; openapi-fetch and @types/node resolve from the repository's node_modules. */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['ES2023'], types: ['node'],
    strict: true, noUncheckedIndexedAccess: true, skipLibCheck: true,
  },
  files: ['main.ts', 'snippet.ts'],
};

/** The snippet in docs/clients.md (the first ts block under "A typed client from /openapi.json"): it must compile too. */
function docsSnippet(): string {
  const doc = readFileSync(join(ROOT, 'docs/clients.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## A typed client from /openapi.json'));
  const snippet = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!snippet) throw new Error('docs/clients.md: no ts snippet under "A typed client from /openapi.json"');
  return snippet;
}

interface Run { readonly code: number; readonly stdout: string; readonly stderr: string }

/** Runs `node args...` in `cwd` under the no-network guard; never throws on a failing exit. */
async function node(cwd: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return promisify(execFile)(process.execPath, ['--import', NO_NETWORK, ...args], { cwd, env: { ...process.env, ...env }, maxBuffer: 64 << 20 })
    .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }))
    .catch((error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? 1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' }));
}

/** A fresh folder holding the example client (test/openapi/client/stacks-example.ts) as main.ts and the snippet in docs/clients.md, as a user's project would. */
function userProject(): string {
  const outputs = join(ROOT, 'test-output');
  mkdirSync(outputs, { recursive: true });
  const dir = mkdtempSync(join(outputs, 'generated-client-'));
  copyFileSync(join(ROOT, 'test/openapi/client/stacks-example.ts'), join(dir, 'main.ts'));
  writeFileSync(join(dir, 'snippet.ts'), docsSnippet());
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  return dir;
}

const generate = (dir: string, source: string) => node(dir, [OPENAPI_TYPESCRIPT, source, '-o', 'stacks-api.d.ts']);
const compile = (dir: string) => node(dir, [TSC, '-p', 'tsconfig.json']);
const failed = (run: Run) => `exit ${run.code}\n${run.stdout}\n${run.stderr}`;

describe('a TypeScript client generated from the served /openapi.json (openapi-typescript + openapi-fetch), compiled with tsc', () => {
  let t: TestApp;
  let server: Server;
  let baseUrl: string;
  const dirs: string[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    server = createHttpServer(t.app);
    baseUrl = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  });
  afterAll(async () => {
    if (server) await stopServer(server, 1000);
    await t?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('compiles the docs snippet and the example; the example registers, uploads, lists and records progress against the running server', { timeout: 180_000 }, async () => {
    const dir = userProject();
    dirs.push(dir);
    const generated = await generate(dir, `${baseUrl}/openapi.json`);
    expect(generated.code, failed(generated)).toBe(0);
    const compiled = await compile(dir);
    expect(compiled.code, failed(compiled)).toBe(0);
    writeFileSync(join(dir, 'book.epub'), await buildEpub({ title: 'Generated Client' }));

    const ran = await node(dir, ['main.js', 'book.epub'], { STACKS_URL: baseUrl });
    expect(ran.code, failed(ran)).toBe(0);
    expect(ran.stderr).not.toContain('NETWORK ATTEMPT');
    const out = JSON.parse(ran.stdout) as { book: { id: string } };
    expect(out).toEqual({
      user: 'ada',
      book: { id: out.book.id, title: 'Generated Client', format: 'epub', tags: ['example'] },
      listed: ['Generated Client'],
      total: 1,
      progress: { status: 'reading', percentage: 0.42, device: 'example script' },
    });

    const login = await request(t.app).post('/api/auth/login').send({ username: 'ada', password: 'correct horse battery' }).expect(200);
    const stored = await request(t.app).get(`/api/books/${out.book.id}/progress`).set(bearer(login.body.access_token)).expect(200);
    expect(stored.body).toMatchObject({ percentage: 0.42, locator: 'epubcfi(/6/4!/4/2)', device: 'example script', status: 'reading' });
  });

  it('fails to compile when the document renames a field the client sends (a breaking change)', { timeout: 180_000 }, async () => {
    const dir = userProject();
    dirs.push(dir);
    const document = (await request(t.app).get('/openapi.json').expect(200)).body;
    const update = document.components.schemas.ProgressUpdate;
    update.properties.fraction = update.properties.percentage;
    delete update.properties.percentage;
    update.required = ['fraction'];
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document));
    expect((await generate(dir, './openapi.json')).code).toBe(0);
    const compiled = await compile(dir);
    expect(compiled.code).not.toBe(0);
    expect(compiled.stdout).toMatch(/main\.ts\(\d+,\d+\): error TS\d+: .*percentage/);
    expect(readFileSync(join(dir, 'stacks-api.d.ts'), 'utf8')).toContain('fraction: number');
  });
});
