import fc from 'fast-check';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload } from '../support/books.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';
import { needsCredentials, ResponseChecker, type Operation } from './support/fuzz-checker.js';
import { fieldPart, filePart, multipart, multipartType } from './support/multipart.js';
import { closeAgent, rawRequest } from './support/raw-http.js';
import { mutated, parameterValue, resolver, HOSTILE, type Resolve, type Schema } from './support/schema-arbitrary.js';
import { malformedMultipart, malformedToken } from './support/malformed.js';
import { WORLD_LOGIN_POLICIES, closeServer, listen } from './support/world.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 500);
const PW = 'correct horse battery';

let t: TestApp;
let server: Server;
let url: string;
let dataDir: string;
let doc: { paths: Record<string, Record<string, Operation['op']>>; components?: { schemas?: Record<string, Schema> } };
let resolve: Resolve;
let checker: ResponseChecker;
let admin: Session;
let owner: Session;
let pwUser: Session;
const pools = { books: [] as string[], shelves: [] as string[], users: [] as string[] };
const protoBefore = Object.getOwnPropertyNames(Object.prototype).sort().join();

beforeAll(async () => {
  console.log(`FUZZ: seed ${SEED} (replay with FUZZ_SEED=${SEED}), ${RUNS} requests per operation`);
  dataDir = await mkdtemp(join(tmpdir(), 'stacks-fuzz-'));
  t = await startTestApp({ DATABASE_URL: '', DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '0', REGISTER_LIMIT_PER_HOUR: '0' }, { loginPolicies: WORLD_LOGIN_POLICIES });
  ({ server, url } = await listen(t));
  admin = await registerUser(t.app, 'fuzzadmin');
  owner = await registerUser(t.app, 'fuzzowner');
  pwUser = await registerUser(t.app, 'fuzzpw');
  await registerUser(t.app, 'fuzzlogout');
  for (let i = 0; i < 3; i++) pools.users.push((await registerUser(t.app, `fuzzspare${i}`)).user.id);
  pools.users.push(admin.user.id);
  for (let i = 0; i < 4; i++) pools.books.push((await upload(t.app, owner, Buffer.from(`Fuzz book ${i}\n`), `Fuzz - Book ${i}.txt`)).body.id);
  for (let i = 0; i < 3; i++) {
    const res = await request(t.app).post('/api/shelves').set(bearer(owner.token)).send({ name: `fuzz ${i}`, is_public: i === 0, book_ids: pools.books.slice(0, 2) });
    pools.shelves.push(res.body.id);
  }
  doc = (await request(t.app).get('/openapi.json')).body;
  resolve = resolver(doc);
  checker = new ResponseChecker(doc);
}, 60_000);

afterAll(async () => {
  const line = `FUZZ: ${checker.requests} fuzzed requests, ${checker.fiveXx} 5xx, ${checker.violations.filter((v) => v.status < 500).length} schema violations`;
  console.log(line);
  console.log(`FUZZ: statuses ${[...checker.statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ')}`);
  closeAgent();
  await closeServer(server);
  await t.close();
  await rm(dataDir, { recursive: true, force: true });
});

const operations = (): Operation[] => Object.entries(doc.paths)
  .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ method, path, op })))
  .sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'));

/** The token a request on this operation is sent with (the owner of the pooled objects where it matters). */
async function tokenFor(o: Operation): Promise<string | null> {
  if (!needsCredentials(o.op)) return null;
  if (o.path.startsWith('/api/users') || o.path === '/api/roles') return admin.token;
  if (o.path === '/api/auth/logout') return (await request(t.app).post('/api/auth/login').send({ username: 'fuzzlogout', password: PW })).body.access_token;
  if (o.path === '/api/auth/password') return pwUser.token;
  return owner.token;
}

const poolFor = (o: Operation, name: string) =>
  name === 'book_id' || o.path.startsWith('/api/books') ? pools.books : o.path.startsWith('/api/shelves') ? pools.shelves : pools.users;

interface Generated { path: Record<string, string>; query: Array<[string, string]>; body: unknown; auth: 'owner' | 'none' | 'junk'; type: string }

function arbitraryFor(o: Operation): fc.Arbitrary<Generated> {
  const params = o.op.parameters ?? [];
  const path: Record<string, fc.Arbitrary<string>> = {};
  for (const p of params.filter((x) => x.in === 'path')) {
    path[p.name] = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...poolFor(o, p.name)) }, { weight: 1, arbitrary: parameterValue(p.schema, resolve).filter((v) => v.length > 0) });
  }
  const query = fc.tuple(
    ...params.filter((x) => x.in === 'query').map((p) => fc.option(parameterValue(p.schema, resolve).map((v): [string, string] => [p.name, v.slice(0, 400)]), { nil: undefined })),
    fc.option(fc.constantFrom<[string, string]>(['evil', '1'], ['q[$ne]', 'x'], ['page', '2'], ['__proto__[isAdmin]', 'true'], ['page_size', '1000000']), { nil: undefined, freq: 5 }),
  ).map((xs) => xs.filter((x): x is [string, string] => x !== undefined));
  const content = o.op.requestBody?.content ?? {};
  const json = content['application/json']?.schema;
  const form = content['multipart/form-data']?.schema;
  const body: fc.Arbitrary<unknown> = json ? mutated(json, resolve) : form ? formBody(form) : fc.constant(undefined);
  const type = json ? fc.oneof({ weight: 12, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', '') })
    : fc.constant(form ? multipartType() : '');
  return fc.record({ path: fc.record(path), query, body, type, auth: fc.oneof({ weight: 12, arbitrary: fc.constant<'owner'>('owner') }, { weight: 1, arbitrary: fc.constantFrom<'none' | 'junk'>('none', 'junk') }) });
}

/** A multipart upload: the file part plus allow-listed (or not) text fields, values valid or hostile. */
function formBody(schema: Schema): fc.Arbitrary<unknown> {
  const props = Object.keys(resolve(schema).properties ?? {}).filter((k) => k !== 'file');
  const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '');
  return fc.record({
    fields: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...props), fc.constantFrom('evil', 'a[b]', '__proto__')), fc.oneof(fc.string({ maxLength: 40 }), HOSTILE.map(text))), { maxLength: 4 }),
    file: fc.oneof(fc.string({ minLength: 1, maxLength: 200 }).map((s) => Buffer.from(`${s}\n`)), fc.uint8Array({ minLength: 0, maxLength: 2000 }).map((a) => Buffer.from(a))),
    name: fc.oneof(fc.constant('book.txt'), fc.string({ maxLength: 30 }).map((s) => `${s.replace(/["\r\n\\]/g, '')}.txt`)),
  }).map(({ fields, file, name }) => ({ __multipart: multipart([...fields.map(([k, v]) => fieldPart(k, v.replace(/[\r\n]/g, ' '))), filePart(name, file)]) }));
}

async function send(o: Operation, g: Generated): Promise<void> {
  let target = o.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(g.path[name] ?? 'x'));
  if (g.query.length) target += `?${g.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
  const headers: Record<string, string> = {};
  const token = g.auth === 'owner' ? await tokenFor(o) : g.auth === 'junk' ? 'junk.token.here' : null;
  if (token) headers.Authorization = `Bearer ${token}`;
  let payload: Buffer | string | undefined;
  if (g.body !== undefined) {
    const b = (typeof g.body === 'object' && g.body !== null ? g.body : {}) as { __raw?: string; __multipart?: Buffer };
    payload = b.__multipart ?? b.__raw ?? JSON.stringify(g.body);
    if (g.type) headers['Content-Type'] = g.type;
  }
  const res = await rawRequest(url, o.method.toUpperCase(), target, headers, payload).catch(() => ({ status: 0, headers: {}, text: '' }));
  checker.check(o, res, `${o.method.toUpperCase()} ${target} ${typeof payload === 'string' ? payload.slice(0, 200) : ''}`);
}

describe('property fuzzing from /openapi.json (fixed seed, replayable)', () => {
  it(`sends ${RUNS} generated requests per operation: only 2xx or documented 4xx, every body as documented`, async () => {
    for (const [i, o] of operations().entries()) {
      for (const g of fc.sample(arbitraryFor(o), { seed: SEED + i, numRuns: RUNS })) await send(o, g);
    }
    expect(checker.violations.slice(0, 20)).toEqual([]);
  }, 240_000);

  it('answers ≥2000 malformed tokens on every family with a generic 401 (431 when oversized)', async () => {
    const families: Operation[] = ['/api/auth/me', '/api/books', '/api/shelves', '/api/users', '/api/roles']
      .map((path) => ({ method: 'get', path, op: doc.paths[path]!.get! }));
    const before = checker.violations.length;
    for (const [i, token] of fc.sample(malformedToken(owner.token), { seed: SEED + 1000, numRuns: 2000 }).entries()) {
      const o = families[i % families.length]!;
      const res = await rawRequest(url, 'GET', o.path, { Authorization: token }).catch(() => ({ status: 0, headers: {}, text: '' }));
      if (res.status === 431 || res.status === 401) checker.requests += 1;
      else checker.check({ ...o, op: { ...o.op, responses: {} } }, res, `token ${JSON.stringify(token).slice(0, 120)}`);
    }
    expect(checker.violations.slice(before, before + 20)).toEqual([]);
  }, 120_000);

  it('answers ≥1000 malformed multipart bodies with a documented 4xx', async () => {
    const o: Operation = { method: 'post', path: '/api/books', op: doc.paths['/api/books']!.post! };
    const before = checker.violations.length;
    for (const m of fc.sample(malformedMultipart(), { seed: SEED + 2000, numRuns: 1000 })) {
      const res = await rawRequest(url, 'POST', '/api/books', { Authorization: `Bearer ${owner.token}`, 'Content-Type': m.type }, m.body)
        .catch(() => ({ status: 0, headers: {}, text: '' }));
      checker.check(o, res, `multipart ${m.type} ${m.body.subarray(0, 120).toString('latin1')}`);
      if (res.status === 201) await request(t.app).delete(`/api/books/${JSON.parse(res.text).id}`).set(bearer(owner.token));
    }
    expect(checker.violations.slice(before, before + 20)).toEqual([]);
  }, 120_000);

  it('leaves no prototype pollution behind', () => {
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort().join()).toBe(protoBefore);
  });

  it('prints the figures and fails on any 5xx or schema violation', () => {
    expect(checker.requests).toBeGreaterThanOrEqual(RUNS * operations().length + 3000);
    expect({ fiveXx: checker.fiveXx, violations: checker.violations.length }).toEqual({ fiveXx: 0, violations: 0 });
  });
});

