import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BookRepository } from '../../src/application/ports.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { aBook } from '../support/builders.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

const PASSWORD = 'correct horse battery';
let dir: string;
let t: TestApp;
let alice: Session;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stacks-search-'));
  t = await startTestApp({ DATABASE_URL: '', DATA_DIR: dir });
  alice = await registerUser(t.app, 'alice', PASSWORD);
  await t.container.di.resolve<BookRepository>(PORTS.BookRepository).create(aBook({ id: 'odd', title: 'Say "NEAR" (to* me' }));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const api = (q: string) => request(t.app).get(`/api/books?q=${q}`).set(bearer(alice.token));
const opds = (path: string) => request(t.app).get(path).auth('alice', PASSWORD);

describe('search text over the embedded SQLite store', () => {
  it('refuses control characters in q as a 422 on the REST API, OPDS 1.2 and OPDS 2.0', async () => {
    for (const q of ['ab%00cd', '%00', 'dune%1Ffrank', 'a%7Fb', 'a%C2%85b']) {
      const rest = await api(q);
      expect([rest.status, rest.body.code, rest.body.errors?.[0]?.field], q).toEqual([422, 'validation_failed', 'q']);
      const v1 = await opds(`/opds/search?q=${q}`);
      expect([v1.status, v1.body.code, v1.body.errors?.[0]?.field], q).toEqual([422, 'validation_failed', 'q']);
      const v2 = await opds(`/opds/v2/search?query=${q}`);
      expect([v2.status, v2.body.code, v2.body.errors?.[0]?.field], q).toEqual([422, 'validation_failed', 'query']);
    }
  });

  it('answers FTS5 syntax, quotes and unbalanced parentheses in q as literal text, never a 5xx', async () => {
    const hits = (res: request.Response) => [res.status, res.body.items?.map((b: { id: string }) => b.id)];
    for (const q of ['%22NEAR%22', '(to*', '*', '%22', 'say%20%22near']) expect(hits(await api(q)), q).toEqual([200, ['odd']]);
    for (const q of ['NEAR(a%20b)', 'say*', '(say', 'me)', '%22say', 'say%20OR%20me', '%5E']) {
      expect(hits(await api(q)), q).toEqual([200, []]);
    }
    expect((await opds('/opds/search?q=(to*')).status).toBe(200);
    expect((await opds('/opds/v2/search?query=NEAR(%22')).status).toBe(200);
  });
});
