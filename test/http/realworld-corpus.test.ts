import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';
import { calibreViews, CORPUS_DIR, differences, factsOf, RULES, type Difference, type Rule } from '../support/calibre-view.js';
import { mongoServerKind, mongoTestServer, stopMongoTestServer } from '../support/mongo-server.js';
import request from 'supertest';

/*
 * The real-world corpus (test/fixtures/realworld, built by make.sh with calibre, pandoc, ImageMagick,
 * ghostscript and qpdf) uploaded through the API on every store, each book compared field by field
 * with what calibre's `ebook-meta` reported for the same file. A difference passes only when a rule
 * of support/calibre-view.ts names it; docs/clients.md ("Files and clients tried") lists those rules.
 */
const { calibre: calibreVersion, files } = calibreViews();
const names = Object.keys(files).sort();
const FORMATS_BY_EXTENSION: Record<string, string[]> = {
  epub: ['epub'], pdf: ['pdf'], mobi: ['mobi', 'azw3'], azw3: ['azw3'], cbz: ['cbz'], fb2: ['fb2'], txt: ['txt'],
};

const STORES = [
  { name: 'memory', env: async (_dir: string) => ({}) },
  { name: 'sqlite', env: async (dir: string) => ({ DATABASE_URL: '', DATA_DIR: dir }) },
  {
    name: `mongo (${mongoServerKind()})`,
    env: async (dir: string) => ({ DATABASE_URL: (await mongoTestServer()).database(`stacks_corpus_${process.pid}`), DATA_DIR: dir }),
  },
];
const rulesSeen = new Map<Rule, Set<string>>();

afterAll(() => stopMongoTestServer());

it('the committed corpus is the one calibre was asked about, and every file in it has calibre\'s view', () => {
  const onDisk = readdirSync(`${CORPUS_DIR}files`).sort();
  expect(onDisk).toEqual(names);
  for (const name of names) {
    expect(createHash('sha256').update(readFileSync(`${CORPUS_DIR}files/${name}`)).digest('hex'), name).toBe(files[name]!.sha256);
  }
  expect(calibreVersion).toMatch(/^\d+\.\d+/);
});

describe.each(STORES)('real-world corpus on $name: every file calibre reads is accepted and read as calibre reads it', ({ name: store, env }) => {
  let dir: string;
  let t: TestApp;
  let alice: Session;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-corpus-'));
    t = await startTestApp(await env(dir));
    alice = await registerUser(t.app, 'alice');
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(names)('%s', async (fileName) => {
    const bytes = readFileSync(`${CORPUS_DIR}files/${fileName}`);
    const res = await request(t.app).post('/api/books').set(bearer(alice.token)).attach('file', bytes, fileName);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const book = res.body;
    expect(FORMATS_BY_EXTENSION[fileName.split('.').pop()!]).toContain(book.format);
    const download = await request(t.app).get(`/api/books/${book.id}/file`).set(bearer(alice.token)).buffer(true).parse((r, done) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => done(null, Buffer.concat(chunks)));
    });
    expect(Buffer.compare(download.body as Buffer, bytes), 'the file is stored as uploaded').toBe(0);

    const found = differences(fileName, book, files[fileName]!, factsOf(bytes));
    for (const d of found) if (d.rule) rulesSeen.set(d.rule, (rulesSeen.get(d.rule) ?? new Set()).add(`${fileName} ${d.field}`));
    const unexplained: Difference[] = found.filter((d) => d.rule === null);
    expect(unexplained, `${store}: fields read differently from calibre ${calibreVersion}`).toEqual([]);
  }, 60_000);
});

it('every rule docs/clients.md names is one some corpus file needs', () => {
  expect([...rulesSeen.keys()].sort()).toEqual(Object.keys(RULES).sort());
});
