import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BookRepository, ProgressRepository } from '../../src/application/ports.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { aBook, instant } from '../support/builders.js';
import { FakeClock, TEST_NOW } from '../support/clock.js';
import { EMBEDDED_STORES, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';
import { as } from '../support/acting-as.js';


describe.each(EMBEDDED_STORES)('reading progress over HTTP ($name)', ({ env }) => {
  let dir: string;
  let t: TestApp;
  let clock: FakeClock;
  let admin: Session;
  let alice: Session;
  let bob: Session;
  const bookIds = ['dune', 'emma', 'anathem'];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-progress-'));
    clock = new FakeClock();
    t = await startTestApp(env(dir), { clock });
    admin = await registerUser(t.app, 'admin');
    alice = await registerUser(t.app, 'alice');
    bob = await registerUser(t.app, 'bob');
    const books = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
    for (const [i, id] of bookIds.entries()) await books.create(aBook({ id, title: id, createdAt: instant(i) }));
  });
  afterEach(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const progressOf = (userId: string, bookId: string) => t.container.di.resolve<ProgressRepository>(PORTS.ProgressRepository).get(userId, bookId);
  const put = (who: Session, bookId: string, body: object) => as(t.app, who).put(`/api/books/${bookId}/progress`, body);
  const ids = (res: request.Response) => (res.body.items as Array<{ id: string }>).map((b) => b.id);

  it('GET gives unread at 0 for a book never opened', async () => {
    const res = await as(t.app, alice).get('/api/books/dune/progress');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ book_id: 'dune', status: 'unread', percentage: 0, locator: null, device: null, device_id: null, updated_at: null });
  });

  it('PUT stores the caller\'s state and GET returns it; another reader still sees unread', async () => {
    const body = { percentage: 0.42, locator: '/body/DocFragment[12]/body/p[3]/text().0', device: 'Kobo Clara', device_id: 'ab12' };
    const res = await put(alice, 'dune', body);
    expect(res.status).toBe(200);
    const expected = { book_id: 'dune', status: 'reading', ...body, updated_at: TEST_NOW.toISOString() };
    expect(res.body).toEqual(expected);
    expect((await as(t.app, alice).get('/api/books/dune/progress')).body).toEqual(expected);
    expect((await as(t.app, bob).get('/api/books/dune/progress')).body).toMatchObject({ status: 'unread', percentage: 0 });
  });

  it('defaults the status: unread at 0, reading above, finished at 1; a given status wins', async () => {
    expect((await put(alice, 'dune', { percentage: 0 })).body.status).toBe('unread');
    expect((await put(alice, 'dune', { percentage: 0.5 })).body.status).toBe('reading');
    expect((await put(alice, 'dune', { percentage: 1 })).body.status).toBe('finished');
    expect((await put(alice, 'dune', { percentage: 0.9, status: 'finished' })).body.status).toBe('finished');
  });

  it('DELETE answers 204 and the book is unread again', async () => {
    await put(alice, 'dune', { percentage: 0.5 });
    expect((await as(t.app, alice).del('/api/books/dune/progress')).status).toBe(204);
    expect((await as(t.app, alice).get('/api/books/dune/progress')).body).toMatchObject({ status: 'unread', updated_at: null });
    expect((await as(t.app, alice).del('/api/books/dune/progress')).status).toBe(204);
  });

  it('is 404 book_not_found on every route for a book that is not there', async () => {
    for (const res of [
      await as(t.app, alice).get('/api/books/missing/progress'),
      await put(alice, 'missing', { percentage: 0.5 }),
      await as(t.app, alice).del('/api/books/missing/progress'),
    ]) expect(res.body).toMatchObject({ status: 404, code: 'book_not_found' });
  });

  it('is 422 for bad input and stores nothing', async () => {
    for (const body of [
      {}, { percentage: 1.5 }, { percentage: -0.1 }, { percentage: '0.5' }, { percentage: 0.5, status: 'abandoned' },
      { percentage: 0.5, locator: 'x'.repeat(2_049) }, { percentage: 0.5, extra: true }, { percentage: 0.5, device: 'd'.repeat(101) },
    ]) {
      const res = await put(alice, 'dune', body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(422);
      expect(res.body.code).toBe('validation_failed');
    }
    expect((await put(alice, 'dune', { percentage: 0.5, locator: 'x'.repeat(2_048) })).status).toBe(200);
    expect(await progressOf(alice.user.id, 'emma')).toBeNull();
  });

  it('GET /api/books filters by the caller\'s status and sorts by what they read last', async () => {
    await put(alice, 'emma', { percentage: 0.3 });
    clock.advance(1_000);
    await put(alice, 'dune', { percentage: 1 });
    clock.advance(1_000);
    await put(bob, 'anathem', { percentage: 0.5 });
    expect(ids(await as(t.app, alice).get('/api/books?status=reading'))).toEqual(['emma']);
    expect(ids(await as(t.app, alice).get('/api/books?status=finished'))).toEqual(['dune']);
    expect(ids(await as(t.app, alice).get('/api/books?status=unread'))).toEqual(['anathem']);
    expect(ids(await as(t.app, alice).get('/api/books?sort=-read'))).toEqual(['dune', 'emma', 'anathem']);
    expect(ids(await as(t.app, alice).get('/api/books?sort=read'))).toEqual(['emma', 'dune', 'anathem']);
    expect(ids(await as(t.app, bob).get('/api/books?sort=-read&page_size=1'))).toEqual(['anathem']);
    expect((await as(t.app, alice).get('/api/books?status=done')).status).toBe(422);
  });

  it('deleting a book deletes every reader\'s progress of it', async () => {
    await put(alice, 'dune', { percentage: 0.5 });
    await put(bob, 'dune', { percentage: 0.7 });
    await put(bob, 'emma', { percentage: 0.7 });
    expect((await as(t.app, admin).del('/api/books/dune')).status).toBe(204);
    expect(await progressOf(alice.user.id, 'dune')).toBeNull();
    expect(await progressOf(bob.user.id, 'dune')).toBeNull();
    expect(await progressOf(bob.user.id, 'emma')).not.toBeNull();
  });

  it('deleting a user deletes their progress and no one else\'s', async () => {
    await put(alice, 'dune', { percentage: 0.5 });
    await put(bob, 'dune', { percentage: 0.7 });
    expect((await as(t.app, admin).del(`/api/users/${alice.user.id}`)).status).toBe(204);
    expect(await progressOf(alice.user.id, 'dune')).toBeNull();
    expect(await progressOf(bob.user.id, 'dune')).not.toBeNull();
  });
});
