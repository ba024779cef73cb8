import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { buildEpub } from '../../support/fixtures/index.js';
import { storageRoot, storedFiles } from '../../support/books.js';
import { bearer, registerUser, type Session } from '../../support/test-app.js';
import request from 'supertest';
import { attack, isProblem, verdict, type Attack, type Seen } from '../support/outcome.js';
import { fieldPart, filePart, multipart, multipartType, type Part } from '../support/multipart.js';
import { retainedGrowth } from '../support/retained-memory.js';
import { otherApp, type World } from '../support/world.js';
import { BOMBS, NAMES, PDFS, SLIPS, TYPES, XML, slipEpub } from './upload-fixtures.js';

/** Sends a 300 MB chunked multipart upload (argv: port, authorization, content type); prints the status, or -1 when the server cut the socket. */
const STREAMING_CLIENT = `
const [port, authorization, type] = process.argv.slice(1);
const head = Buffer.from('--stacksSecurityBoundary7MA4YWxkTrZu0gW\\r\\nContent-Disposition: form-data; name="file"; filename="huge.txt"\\r\\n\\r\\n');
const chunk = Buffer.alloc(1024 * 1024, 0x61);
const req = require('node:http').request({ host: '127.0.0.1', port, method: 'POST', path: '/api/books',
  headers: { authorization, 'content-type': type, 'transfer-encoding': 'chunked' } }, (res) => { res.resume(); console.log(res.statusCode); });
req.on('error', () => console.log(-1));
req.write(head);
let sent = 0;
const pump = () => { while (sent < 300 && req.write(chunk)) sent += 1; if (sent >= 300) return req.end(); sent += 1; req.once('drain', pump); };
pump();
`;

const HEALTH_DURING_UPLOADS = fileURLToPath(new URL('../support/health-during-uploads.mjs', import.meta.url));

/** Runs a client script in its own process with `input` on its stdin; resolves with what it printed. */
function runClient(script: string, args: readonly string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => { out += c; });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`client exited with ${code}`))));
    child.stdin.end(input);
  });
}

const MB = 1024 * 1024;
let seq = 0;

const post = (w: World, s: Session, parts: readonly Part[]) =>
  w.api().post('/api/books').set(bearer(s.token)).set('Content-Type', multipartType()).send(multipart(parts));

interface Bounds { readonly refuse?: readonly number[]; readonly maySucceed?: boolean; readonly fields?: Part[] }

/** Sends a prebuilt multipart body over a raw socket (no client-side copies inflate the RSS figure). */
function rawUpload(w: World, s: Session, body: Buffer): Promise<Seen & { body: Record<string, unknown> }> {
  const { port } = new URL(w.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/books',
      headers: { ...bearer(s.token), 'Content-Type': multipartType(), 'Content-Length': body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: Record<string, unknown> = {};
        try { parsed = JSON.parse(text) as Record<string, unknown>; } catch { /* not JSON */ }
        resolve({ status: res.statusCode ?? 0, text, headers: res.headers as Record<string, unknown>, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Uploads one hostile file: a 4xx (or, where allowed, a clean 201), peak growth
 * under 100 MB (RSS, and heap plus Buffers), nothing staged left. Memory is sampled after young-generation
 * collections, as UP-01 does: what the process (parser workers included) holds counts, request Buffers
 * V8 has not yet freed do not (docs/node-versions.md).
 */
async function hostile(w: World, bytes: Buffer, fileName: string, b: Bounds = {}) {
  const body = multipart([...(b.fields ?? []), filePart(fileName, bytes)]);
  let elapsed = 0;
  // Timed inside the sampler, so the full collection it starts with does not count against the upload.
  const { result: res, grew } = await retainedGrowth(async () => {
    const started = Date.now();
    const answer = await rawUpload(w, w.bob, body);
    elapsed = Date.now() - started;
    return answer;
  });
  const files = await storedFiles(w.t);
  const refused = isProblem(res, b.refuse ?? [400, 413, 415, 422]);
  // The time is noted, not judged (it is the machine's); the parse budget is the server's own (metadata_timeout).
  const ok = (refused || (b.maySucceed === true && res.status === 201))
    && grew.rss < 100 && grew.held < 100 && files.tmp.length === 0 && !(res.text ?? '').includes(storageRoot(w.t));
  if (res.status === 201) await w.api().delete(`/api/books/${String(res.body.id)}`).set(bearer(w.bob.token));
  return verdict(res, ok, `${elapsed} ms, rss +${grew.rss.toFixed(0)} MB, heap and buffers +${grew.held.toFixed(0)} MB`);
}

const notCreatedOutside = () => !['/tmp/stacks-pwned', '/etc/stacks-x', '/tmp/stacks-pdf-pwned'].some((p) => existsSync(p));

export const uploadAttacks: Attack[] = [
  attack('UP-01', 'limit-plus-one', 'an upload one byte over MAX_UPLOAD_MB: 413, nothing kept', async () => {
    const other = await otherApp({ DATABASE_URL: 'memory:', MAX_UPLOAD_MB: '1' });
    try {
      const s = await registerUser(other.app, 'big');
      const res = await request(other.app).post('/api/books').set(bearer(s.token)).set('Content-Type', multipartType())
        .send(multipart([filePart('big.txt', Buffer.alloc(MB + 1, 0x61))]));
      const files = await storedFiles(other);
      return verdict(res, isProblem(res, 413) && files.tmp.length === 0 && files.books.length === 0);
    } finally {
      await other.close();
    }
  }),
  attack('UP-01', 'streamed-cutoff', 'a 300 MB body on a real socket is cut off at the 200 MB limit with RSS growth under 50 MB', async (w) => {
    // The client runs in its own process, so the memory sampled here is the server's alone.
    const { port } = new URL(w.url);
    const { result: status, grew } = await retainedGrowth(() => new Promise<number>((resolve) => {
      const child = execFile(process.execPath, ['-e', STREAMING_CLIENT, port, bearer(w.bob.token).Authorization, multipartType()], (error, stdout) =>
        resolve(error ? -2 : Number(stdout.trim().split('\n')[0])));
      child.stdin?.end();
    }));
    const files = await storedFiles(w.t);
    return verdict({ status, headers: {} }, (status === 413 || status === -1) && files.tmp.length === 0 && grew.rss < 50 && grew.held < 50,
      `server rss +${grew.rss.toFixed(0)} MB, heap and buffers +${grew.held.toFixed(0)} MB, sampled after young-generation collections`);
  }, 60_000),
  attack('UP-02', 'two-files', 'two file parts', async (w) => {
    const res = await post(w, w.bob, [filePart('a.txt', 'one\n'), filePart('b.txt', 'two\n')]);
    return verdict(res, isProblem(res, [400, 413, 422]));
  }),
  attack('UP-02', 'thousand-fields', '1000 small fields', async (w) => {
    const res = await post(w, w.bob, [...Array.from({ length: 1000 }, (_, i) => fieldPart('title', `t${i}`)), filePart('a.txt', 'x\n')]);
    return verdict(res, isProblem(res, [400, 413, 422]));
  }),
  attack('UP-02', 'deep-field-name', 'a field name nested 500 levels deep (CVE-2026-5079 shape)', async (w) => {
    const res = await post(w, w.bob, [fieldPart(`a${'[b]'.repeat(500)}`, 'x'), filePart('a.txt', 'x\n')]);
    return verdict(res, isProblem(res, [400, 413, 422]));
  }),
  attack('UP-02', 'huge-index-field', 'a field name a[99999999] (CVE-2026-77078 shape)', async (w) => {
    const res = await post(w, w.bob, [fieldPart('a[99999999]', 'x'), filePart('a.txt', 'x\n')]);
    return verdict(res, isProblem(res, [400, 422]));
  }),
  attack('UP-02', 'file-in-text-field', 'the file sent as a text field', async (w) => {
    const res = await post(w, w.bob, [fieldPart('file', 'not a file part')]);
    return verdict(res, isProblem(res, [400, 422]));
  }),
  ...Object.keys(BOMBS).map((k) => attack('UP-04', `bomb.${k}`, `zip bomb: ${k}`, async (w) => {
    const bytes = await BOMBS[k]!();
    return hostile(w, bytes, `${k}.epub`, { maySucceed: k === 'nested-zip-in-zip' || k === 'overlapping-entries' });
  }, 60_000)),
  ...Object.keys(SLIPS).map((k) => attack('UP-05', `slip.${k}`, `zip slip: ${k}`, async (w) => {
    const out = await hostile(w, slipEpub(k), `${k}.epub`);
    return { ...out, succeeded: out.succeeded || !notCreatedOutside() };
  })),
  ...Object.keys(XML).map((k) => attack('UP-06', `xml.${k}`, `package document: ${k}`, async (w) => {
    const bytes = await buildEpub({ opf: XML[k]!, title: `xml ${k}` });
    return hostile(w, bytes, `${k}.epub`, { maySucceed: ['deepNesting', 'charRefFlood', 'hugeAttribute'].includes(k) });
  }, 30_000)),
  attack('UP-06', 'external-dtd-canary', 'an external DTD on a loopback canary is never fetched', async (w) => {
    let hits = 0;
    const canary = createServer((_q, r) => { hits += 1; r.end('<!ENTITY x "y">'); });
    await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
    const port = (canary.address() as AddressInfo).port;
    const opf = `<?xml version="1.0"?><!DOCTYPE package SYSTEM "http://127.0.0.1:${port}/evil.dtd"><package><metadata/></package>`;
    const out = await hostile(w, await buildEpub({ opf }), 'dtd.epub');
    canary.close();
    return { ...out, succeeded: out.succeeded || hits > 0, note: `canary hits ${hits}` };
  }),
  ...Object.keys(PDFS).map((k) => attack('UP-07', `pdf.${k}`, `PDF: ${k}`, async (w) => {
    const out = await hostile(w, PDFS[k]!(), `${k}.pdf`, { maySucceed: true });
    return { ...out, succeeded: out.succeeded || !notCreatedOutside() };
  }, 60_000)),
  ...Object.keys(TYPES).map((k) => attack('UP-03', `type.${k}`, `content decides the type: ${k}`, async (w) => {
    const spec = TYPES[k]!;
    const res = await post(w, w.bob, [filePart(spec.name, await spec.bytes())]);
    const ok = spec.accepted ? (res.status === 201 && res.body.format === spec.accepted) || isProblem(res, 415)
      : isProblem(res, [400, 415, 422]);
    if (res.status === 201) await w.api().delete(`/api/books/${res.body.id}`).set(bearer(w.bob.token));
    return verdict(res, ok && (await storedFiles(w.t)).tmp.length === 0);
  })),
  ...NAMES.map((name, i) => attack('UP-08', `name.${i}`, `file name ${JSON.stringify(name.slice(0, 40))}`, async (w) => {
    const res = await post(w, w.bob, [filePart(name, `Name case ${i} ${(seq += 1)}.\n`)]);
    if (res.status !== 201) return verdict(res, isProblem(res, [400, 422]));
    const files = await storedFiles(w.t);
    const dl = await w.api().get(`/api/books/${res.body.id}/file`).set(bearer(w.bob.token));
    await w.api().delete(`/api/books/${res.body.id}`).set(bearer(w.bob.token));
    const stored = files.books.every((f) => /^[A-Za-z0-9._-]+$/.test(f) && !f.includes('..'));
    const name2 = String(res.body.file_name);
    const clean = !/[\u0000-\u001f\u202e/\\]/.test(name2) && name2.length <= 255;
    const header = String(dl.headers['content-disposition'] ?? '');
    return verdict([res, dl], stored && clean && dl.status === 200 && !('x-injected' in dl.headers) && /^attachment/.test(header) && !/[\r\n]/.test(header));
  })),
  attack('UP-09', 'script-title-download', 'an EPUB titled <script> downloads as an attachment with nosniff and its own type', async (w) => {
    const res = await post(w, w.bob, [filePart('s.epub', await buildEpub({ title: '&lt;script&gt;alert(1)&lt;/script&gt; Ünïcode\r\nX-Evil: 1' }))]);
    const dl = await w.api().get(`/api/books/${res.body.id}/file`).set(bearer(w.bob.token));
    await w.api().delete(`/api/books/${res.body.id}`).set(bearer(w.bob.token));
    const cd = String(dl.headers['content-disposition'] ?? '');
    return verdict([res, dl], res.status === 201 && dl.status === 200 && /^attachment;/.test(cd) && dl.headers['x-content-type-options'] === 'nosniff'
      && dl.headers['content-type'] === 'application/epub+zip' && !('x-evil' in dl.headers), cd);
  }),
  attack('UP-10', 'parallel-uploads', '20 parallel uploads: healthz asked once the first is answered comes back before half the rest', async (w) => {
    // Ordering, not a time bound: parses wait for the two workers, so a healthz the event loop is free to
    // answer overtakes them; parsing (or anything blocking) on the main thread would finish the queue first.
    const epubs = await Promise.all(Array.from({ length: 20 }, (_, i) => buildEpub({ title: `Parallel ${i} ${Date.now()}` })));
    const input = JSON.stringify({ authorization: bearer(w.bob.token).Authorization, type: multipartType(), bodies: epubs.map((b, i) => multipart([filePart(`p${i}.epub`, b)]).toString('base64')) });
    const answered = JSON.parse(await runClient(HEALTH_DURING_UPLOADS, [new URL(w.url).port], input)) as Array<{ name: string; status: number; retryAfter: string | null; id: string | null }>;
    for (const a of answered) if (a.status === 201) await w.api().delete(`/api/books/${a.id}`).set(bearer(w.bob.token));
    const uploads = answered.filter((a) => a.name !== 'healthz');
    const before = answered.findIndex((a) => a.name === 'healthz');
    const health = answered[before];
    return verdict(answered.map((a) => ({ status: a.status, headers: {} })), uploads.length === 20 && uploads.every((a) => a.status === 201 || (a.status === 503 && Number(a.retryAfter) > 0))
      && health?.status === 200 && before <= 10, `healthz answered after ${before} of 20 uploads`);
  }, 60_000),
  attack('UP-11', 'operator-creator', 'a dc:creator of {"$gt":""} is stored as literal text', async (w) => {
    const res = await post(w, w.bob, [filePart('op.epub', await buildEpub({ title: `Operators ${Date.now()}`, extraMetadata: '<dc:creator>{"$gt":""}</dc:creator>' }))]);
    if (res.status === 201) await w.api().delete(`/api/books/${res.body.id}`).set(bearer(w.bob.token));
    return verdict(res, res.status === 201 && (res.body.authors as string[]).includes('{"$gt":""}'));
  }),
  attack('UP-11', 'megabyte-title', 'a 1 MB title override is refused', async (w) => {
    const res = await post(w, w.bob, [fieldPart('title', 'T'.repeat(MB)), filePart('t.txt', 'x\n')]);
    return verdict(res, isProblem(res, [400, 413, 422]));
  }),
  attack('UP-12', 'aborted-uploads', 'uploads aborted at 10/50/90% of the body, 15 times: nothing left behind', async (w) => {
    const body = multipart([filePart('abort.txt', Buffer.alloc(2 * MB, 0x62))]);
    const { port } = new URL(w.url);
    for (let i = 0; i < 15; i++) {
      const cut = Math.floor(body.length * [0.1, 0.5, 0.9][i % 3]!);
      await new Promise<void>((resolve) => {
        const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/api/books',
          headers: { ...bearer(w.bob.token), 'Content-Type': multipartType(), 'Content-Length': body.length } });
        req.on('error', () => resolve());
        req.write(body.subarray(0, cut), () => setTimeout(() => { req.destroy(); resolve(); }, 20));
      });
    }
    // The server removes an aborted upload's temp file when it sees the abort: wait for that (a busy machine only
    // makes it later); files still there after two minutes were left behind.
    let files = await storedFiles(w.t);
    for (let polls = 0; files.tmp.length > 0 && polls < 1200; polls++) {
      await new Promise((r) => setTimeout(r, 100));
      files = await storedFiles(w.t);
    }
    return verdict({ status: 0, headers: {} } as Seen, files.tmp.length === 0, `tmp: ${files.tmp.length}`);
  }, 300_000),
];
