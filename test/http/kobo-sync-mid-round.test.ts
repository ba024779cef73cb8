import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BookRepository, ChangeFeedRepository } from '../../src/application/ports.js';
import { loadSqliteDriver } from '../../src/adapters/sqlite/sqlite-driver.js';
import { BackfillChangeFeed } from '../../src/application/use-cases/backfill-change-feed.js';
import { KOBO_SYNC_PAGE_SIZE } from '../../src/bootstrap/use-cases.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { progressChange } from '../../src/domain/change-feed.js';
import { as } from '../support/acting-as.js';
import { aBook, instant } from '../support/builders.js';
import { FakeClock } from '../support/clock.js';
import { addKobo, itemsByKind, koboCall, syncRound, type KoboDeviceUrl } from '../support/kobo.js';
import { EMBEDDED_STORES, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

/** One sync page, as the device asks for it. */
async function syncPage(t: TestApp, device: KoboDeviceUrl, token?: string) {
  const req = koboCall(t.app, device, 'get', '/v1/library/sync');
  if (token) req.set('x-kobo-synctoken', token);
  const res = await req;
  expect(res.status).toBe(200);
  return { items: res.body as Array<Record<string, any>>, token: res.headers['x-kobo-synctoken'] as string, more: res.headers['x-kobo-sync'] === 'continue' };
}

describe.each(EMBEDDED_STORES)('Kobo sync: what changes while a round is under way ($name)', ({ env }) => {
  let dir: string;
  let t: TestApp;
  let clock: FakeClock;
  let alice: Session;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-kobo-mid-round-'));
    clock = new FakeClock();
    t = await startTestApp(env(dir), { clock });
    alice = await registerUser(t.app, 'alice');
  });
  afterEach(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('removes a book deleted after an earlier page of the same round delivered it', async () => {
    const books = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
    const count = KOBO_SYNC_PAGE_SIZE + 30;
    for (let i = 0; i < count; i++) await books.create(aBook({ id: `m${String(i).padStart(4, '0')}`, format: 'epub', createdAt: instant(i) }));
    const device = await addKobo(t.app, alice);

    const first = await syncPage(t, device);
    expect(first.more).toBe(true);
    const delivered = itemsByKind(first.items).filter(([k]) => k === 'NewEntitlement').map(([, id]) => id);
    expect(delivered).toHaveLength(KOBO_SYNC_PAGE_SIZE);
    const [gone] = delivered;
    clock.advance(1_000);
    await as(t.app, alice).del(`/api/books/${gone}`).expect(204);

    const rest = await syncRound(t.app, device, first.token);
    const next = await syncRound(t.app, device, rest.token);
    const removals = [...rest.items, ...next.items].filter((i) => i.ChangedEntitlement?.BookEntitlement?.IsRemoved).map((i) => i.ChangedEntitlement.BookEntitlement.Id);
    expect(removals).toEqual([gone]);
    // Every other book reached the device once.
    const arrived = [...first.items, ...rest.items, ...next.items].filter((i) => i.NewEntitlement).map((i) => i.NewEntitlement.BookEntitlement.Id);
    expect(new Set(arrived).size).toBe(count);
  });

  it('deletes a collection deleted after an earlier page of the same round delivered it', async () => {
    const ids: string[] = [];
    for (let i = 0; i < KOBO_SYNC_PAGE_SIZE + 20; i++) {
      ids.push((await as(t.app, alice).post('/api/shelves', { name: `Shelf ${i}` })).body.id as string);
    }
    const device = await addKobo(t.app, alice);
    const first = await syncPage(t, device);
    expect(first.more).toBe(true);
    const delivered = itemsByKind(first.items).filter(([k]) => k === 'NewTag').map(([, id]) => id);
    expect(delivered.length).toBeGreaterThan(0);
    await as(t.app, alice).del(`/api/shelves/${delivered[0]}`).expect(204);

    const rest = await syncRound(t.app, device, first.token);
    const next = await syncRound(t.app, device, rest.token);
    expect(itemsByKind([...rest.items, ...next.items]).filter(([k]) => k === 'DeletedTag')).toEqual([['DeletedTag', delivered[0]]]);
  });

  it("sends the reading state stored now when a removal's entry was recorded after a later save (two writers' entries out of order)", async () => {
    const books = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
    await books.create(aBook({ id: 'read-me', format: 'epub' }));
    const device = await addKobo(t.app, alice);
    let round = await syncRound(t.app, device);

    // A DELETE and a PUT of the same state raced: the PUT's write committed last, the DELETE's entry last.
    clock.advance(60_000);
    await as(t.app, alice).put('/api/books/read-me/progress', { percentage: 0.34, locator: 'epubcfi(/6/4)', device: 'phone', device_id: 'p1' }).expect(200);
    await t.container.di.resolve<ChangeFeedRepository>(PORTS.ChangeFeedRepository).record([progressChange(alice.user.id, 'read-me', true)], clock.now());

    round = await syncRound(t.app, device, round.token);
    expect(itemsByKind(round.items)).toEqual([['ChangedReadingState', 'read-me']]);
    const state = round.items[0]!.ChangedReadingState.ReadingState;
    expect(state.StatusInfo.Status).toBe('Reading');
    expect(state.CurrentBookmark.ProgressPercent).toBe(34);
  });
});

describe('Kobo sync: a reading state whose change-feed entry a crash lost (sqlite)', () => {
  it('reaches the device at its next sync once housekeeping has run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stacks-kobo-lost-entry-'));
    const clock = new FakeClock();
    const t = await startTestApp({ DATABASE_URL: '', DATA_DIR: dir }, { clock });
    try {
      const alice = await registerUser(t.app, 'alice');
      await t.container.di.resolve<BookRepository>(PORTS.BookRepository).create(aBook({ id: 'read-me', format: 'epub' }));
      const device = await addKobo(t.app, alice);
      let round = await syncRound(t.app, device);
      clock.advance(60_000);
      await as(t.app, alice).put('/api/books/read-me/progress', { percentage: 0.34, locator: 'epubcfi(/6/4)', device: 'phone', device_id: 'p1' }).expect(200);
      round = await syncRound(t.app, device, round.token);
      expect(itemsByKind(round.items)).toEqual([['ChangedReadingState', 'read-me']]);

      // The next save reached the database; the process died before its entry (another connection, as after a restart).
      clock.advance(60_000);
      const db = new (loadSqliteDriver())(join(dir, 'stacks.db'));
      db.prepare('UPDATE reading_progress SET percentage = 0.5, updated_at = ? WHERE user_id = ? AND book_id = ?').run(clock.now().getTime(), alice.user.id, 'read-me');
      db.close();
      round = await syncRound(t.app, device, round.token);
      expect(itemsByKind(round.items)).toEqual([]);

      expect(await t.container.di.resolve(BackfillChangeFeed).execute()).toMatchObject({ progressRecorded: 1 });
      round = await syncRound(t.app, device, round.token);
      expect(itemsByKind(round.items)).toEqual([['ChangedReadingState', 'read-me']]);
      expect(round.items[0]!.ChangedReadingState.ReadingState.CurrentBookmark.ProgressPercent).toBe(50);
    } finally {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
