#!/usr/bin/env node
// Start → register → upload → list → download → shelves → SIGTERM against the server as `npm start` runs it
// (the bundle dist/bundle/main.js, with its bcrypt and metadata worker threads),
// on whichever Node runs this script, with its own DATA_DIR and a free port. Exit 0 only when every
// step answered as the API says, the server exited 0, and its log shows no abort or crash.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const main = join(root, 'dist/bundle/main.js');
const CRASH = /abort|Assertion|Segmentation|core dumped|FATAL ERROR/i;
const started = Date.now();

if (!existsSync(main)) fail(`${main} is missing: run npm run build first`);

const { sqliteDriverPackageFor } = await import(pathToFileURL(join(root, 'dist/adapters/sqlite/sqlite-driver.js')).href);
const driver = sqliteDriverPackageFor(process.versions.napi);
console.log(`node-smoke: Node ${process.version} (Node-API ${process.versions.napi}), driver ${driver}`);

const dataDir = mkdtempSync(join(tmpdir(), 'stacks-node-smoke-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
let log = '';
const server = spawn(process.execPath, [main], {
  cwd: dataDir,
  env: { PATH: process.env.PATH, HOME: dataDir, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: join(dataDir, 'data'), BCRYPT_COST: '4', LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
server.stdout.on('data', (chunk) => (log += chunk));
server.stderr.on('data', (chunk) => (log += chunk));
const exited = new Promise((done) => server.on('exit', (code, signal) => done({ code, signal })));

try {
  await step('start', waitUntilReady);
  const token = await step('register', async () => {
    const body = await call('POST', '/api/auth/register', 201, { json: { username: 'smoke', email: 'smoke@example.org', password: 'smoke-password-1' } });
    return body.access_token;
  });
  const auth = { authorization: `Bearer ${token}` };
  const text = 'It was a wall. It did not look important.\n'.repeat(200);
  const book = await step('upload', () => {
    const form = new FormData();
    form.append('file', new Blob([text], { type: 'text/plain' }), 'Ursula K. Le Guin - The Dispossessed.txt');
    return call('POST', '/api/books', 201, { headers: auth, body: form });
  });
  await step('list', async () => {
    const page = await call('GET', '/api/books?q=dispossessed', 200, { headers: auth });
    expect(page.total === 1 && page.items[0].id === book.id, `search found ${page.total} books`);
  });
  await step('download', async () => {
    const response = await fetch(`${base}/api/books/${book.id}/file`, { headers: auth });
    expect(response.status === 200 && (await response.text()) === text, `download: ${response.status}, bytes differ`);
  });
  await step('shelves', async () => {
    const shelf = await call('POST', '/api/shelves', 201, { headers: auth, json: { name: 'Smoke', book_ids: [book.id] } });
    const books = await call('GET', `/api/shelves/${shelf.id}/books`, 200, { headers: auth });
    expect(books.items.map((b) => b.id).join() === book.id, 'the shelf does not list the book');
    const shelves = await call('GET', '/api/shelves', 200, { headers: auth });
    expect(shelves.items.some((s) => s.id === shelf.id), 'the shelf is not listed');
  });
  await step('SIGTERM', async () => {
    server.kill('SIGTERM');
    const { code, signal } = await Promise.race([exited, sleep(15_000, true).then(() => ({ code: 'timeout' }))]);
    expect(code === 0, `server ended with code ${code}, signal ${signal}`);
  });
  expect(!CRASH.test(log), 'the server log shows a crash');
  console.log(`node-smoke: passed on Node ${process.version} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  server.kill('SIGKILL');
  console.error(`node-smoke: FAILED on Node ${process.version}: ${error.message}\n--- server log ---\n${log}`);
  process.exitCode = 1;
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

async function step(name, action) {
  const result = await action();
  console.log(`node-smoke:   ${name} ok`);
  return result;
}

async function call(method, path, status, { headers = {}, json, body } = {}) {
  const init = { method, headers: { ...headers }, body };
  if (json !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(json);
  }
  const response = await fetch(`${base}${path}`, init);
  const text = await response.text();
  expect(response.status === status, `${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

async function waitUntilReady() {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null || server.signalCode !== null) {
      throw new Error(`the server ended while starting (code ${server.exitCode}, signal ${server.signalCode})`);
    }
    const ready = await fetch(`${base}/readyz`).then((r) => r.status === 200, () => false);
    if (ready) return;
    await sleep(200);
  }
  throw new Error('the server was not ready within 30 s');
}

function freePort() {
  return new Promise((done, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
    probe.on('error', reject);
  });
}

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

function sleep(ms, unref = false) {
  return new Promise((done) => {
    const timer = setTimeout(done, ms);
    if (unref) timer.unref();
  });
}

function fail(message) {
  console.error(`node-smoke: ${message}`);
  process.exit(1);
}
