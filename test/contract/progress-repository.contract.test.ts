import { describe, expect, it } from 'vitest';
import type { BookQuery } from '../../src/domain/book.js';
import type { StoredProgress } from '../../src/domain/reading-progress.js';
import { Authority } from '../../src/application/use-cases/authority.js';
import { UpdateProgress } from '../../src/application/use-cases/update-progress.js';
import { aMember, errorOf, FakeClock } from '../support/kit.js';
import { aBook, aUser, instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, useStore } from './stores.js';

function aProgress(overrides: Partial<StoredProgress> = {}): StoredProgress {
  return {
    userId: 'alice', bookId: 'b1', status: 'reading', percentage: 0.25, locator: '/body/DocFragment[3]/body/p[7]',
    device: 'Kobo', deviceId: 'kobo-1', updatedAt: instant(100), ...overrides,
  };
}

function progressRepositoryContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const progress = () => store().progress;

  /** Users alice and bob, books b1..b5 (added in that order), so foreign keys hold. */
  async function seed(): Promise<void> {
    for (const id of ['alice', 'bob']) await store().users.create(aUser({ id, username: id, email: `${id}@example.test` }));
    for (let n = 1; n <= 5; n++) await store().books.create(aBook({ id: `b${n}`, title: `Title ${n}`, createdAt: instant(n) }));
  }

  describe('records', () => {
    it('has nothing for a book never opened, and gives back what was put', async () => {
      await seed();
      expect(await progress().get('alice', 'b1')).toBeNull();
      const written = aProgress();
      await progress().put(written);
      expect(await progress().get('alice', 'b1')).toEqual(written);
    });

    it("finds many of one user's records at once, leaving out books without one and other users'", async () => {
      await seed();
      await progress().put(aProgress());
      await progress().put(aProgress({ bookId: 'b3', percentage: 0.5 }));
      await progress().put(aProgress({ userId: 'bob', bookId: 'b2' }));
      const found = await progress().findMany('alice', ['b1', 'b2', 'b3', 'b9']);
      expect(found.map((p) => [p.bookId, p.percentage]).sort()).toEqual([['b1', 0.25], ['b3', 0.5]]);
      expect(await progress().findMany('alice', [])).toEqual([]);
    });

    it('replaces the record of the same user and book, leaving other users and books alone', async () => {
      await seed();
      await progress().put(aProgress());
      await progress().put(aProgress({ userId: 'bob', percentage: 0.5 }));
      await progress().put(aProgress({ bookId: 'b2', percentage: 0.75 }));
      const newer = aProgress({ status: 'finished', percentage: 1, locator: null, device: null, deviceId: null, updatedAt: instant(200) });
      await progress().put(newer);
      expect(await progress().get('alice', 'b1')).toEqual(newer);
      expect((await progress().get('bob', 'b1'))?.percentage).toBe(0.5);
      expect((await progress().get('alice', 'b2'))?.percentage).toBe(0.75);
    });

    it('keeps a locator of 2,048 characters whole', async () => {
      await seed();
      const locator = 'epubcfi(/6/4!/4/2/1:0)'.padEnd(2_048, 'x');
      await progress().put(aProgress({ locator }));
      expect((await progress().get('alice', 'b1'))?.locator).toBe(locator);
    });

    it('is not affected by later changes to the Date it was given', async () => {
      await seed();
      const written = aProgress();
      await progress().put(written);
      written.updatedAt.setTime(instant(1).getTime());
      expect((await progress().get('alice', 'b1'))?.updatedAt).toEqual(instant(100));
    });

    it('deletes one record and says whether there was one', async () => {
      await seed();
      await progress().put(aProgress());
      await progress().put(aProgress({ bookId: 'b2' }));
      expect(await progress().deleteOne('alice', 'b1')).toBe(true);
      expect(await progress().deleteOne('alice', 'b1')).toBe(false);
      expect(await progress().get('alice', 'b1')).toBeNull();
      expect(await progress().get('alice', 'b2')).not.toBeNull();
    });

    it('deletes every user\'s record of a book, and every record of a user', async () => {
      await seed();
      for (const userId of ['alice', 'bob']) for (const bookId of ['b1', 'b2']) await progress().put(aProgress({ userId, bookId }));
      await progress().deleteForBook('b1');
      expect(await progress().get('alice', 'b1')).toBeNull();
      expect(await progress().get('bob', 'b1')).toBeNull();
      await progress().deleteForUser('bob');
      expect(await progress().get('bob', 'b2')).toBeNull();
      expect(await progress().get('alice', 'b2')).not.toBeNull();
    });
  });

  describe('concurrent writers', () => {
    it('two interleaved writers leave one whole record, never a mix of both', async () => {
      await seed();
      const first = aProgress({ percentage: 0.3, locator: 'first', device: 'phone', updatedAt: instant(101) });
      const second = aProgress({ percentage: 0.6, locator: 'second', device: 'kobo', updatedAt: instant(102) });
      await Promise.all([progress().put(first), progress().put(second)]);
      expect([first, second]).toContainEqual(await progress().get('alice', 'b1'));
      await progress().put(first);
      await Promise.all([progress().deleteOne('alice', 'b1'), progress().put(second)]);
      expect([null, second]).toContainEqual(await progress().get('alice', 'b1'));
    });

    it('100 parallel writes of one user and book end in exactly one record equal to one of them', async () => {
      await seed();
      const writes = Array.from({ length: 100 }, (_, i) => aProgress({ percentage: i / 100, locator: `loc-${i}`, updatedAt: instant(1_000 + i) }));
      await Promise.all(writes.map((w) => progress().put(w)));
      expect(writes).toContainEqual(await progress().get('alice', 'b1'));
      expect(await progress().deleteOne('alice', 'b1')).toBe(true);
      expect(await progress().get('alice', 'b1')).toBeNull();
    });
  });

  it('UpdateProgress keeps nothing for a book deleted between its check and its write', async () => {
    await seed();
    const { books, users, apiKeys, koboDevices } = store();
    const alice = aMember('alice');
    const findById = books.findById.bind(books);
    // DeleteBook runs in full after the use case has found the book.
    books.findById = async (id) => {
      const found = await findById(id);
      await books.delete(id);
      await progress().deleteForBook(id);
      return found;
    };
    const update = new UpdateProgress(books, progress(), new FakeClock(), new Authority(users, apiKeys, new FakeClock(), koboDevices));
    expect(await errorOf(update.execute(alice, { bookId: 'b1', update: { percentage: 0.5 } }))).toMatchObject({ code: 'book_not_found' });
    expect(await progress().get('alice', 'b1')).toBeNull();
  });

  describe('book search by the reader\'s state', () => {
    const search = (query: Partial<BookQuery>) =>
      store().books.search({ reader: 'alice', sort: { field: 'title', descending: false }, page: 1, pageSize: 100, ...query });
    const ids = async (query: Partial<BookQuery>) => (await search(query)).items.map((b) => b.id);

    async function seedReading(): Promise<void> {
      await seed();
      await progress().put(aProgress({ bookId: 'b4', status: 'reading', updatedAt: instant(300) }));
      await progress().put(aProgress({ bookId: 'b2', status: 'finished', percentage: 1, updatedAt: instant(100) }));
      await progress().put(aProgress({ bookId: 'b3', status: 'reading', updatedAt: instant(200) }));
      await progress().put(aProgress({ userId: 'bob', bookId: 'b1', status: 'finished', percentage: 1, updatedAt: instant(900) }));
    }

    it('filters by the reader\'s status; a book without a record is unread; other readers do not count', async () => {
      await seedReading();
      expect(await ids({ status: 'reading' })).toEqual(['b3', 'b4']);
      expect(await ids({ status: 'finished' })).toEqual(['b2']);
      expect(await ids({ status: 'unread' })).toEqual(['b1', 'b5']);
      expect((await search({ status: 'unread' })).total).toBe(2);
      expect(await ids({ reader: 'bob', status: 'finished' })).toEqual(['b1']);
    });

    it('sorts by the reader\'s last write both ways, books never read last (by id in the same direction)', async () => {
      await seedReading();
      expect(await ids({ sort: { field: 'read', descending: true } })).toEqual(['b4', 'b3', 'b2', 'b5', 'b1']);
      expect(await ids({ sort: { field: 'read', descending: false } })).toEqual(['b2', 'b3', 'b4', 'b1', 'b5']);
      expect(await ids({ reader: 'bob', sort: { field: 'read', descending: true } })).toEqual(['b1', 'b5', 'b4', 'b3', 'b2']);
    });

    it('pages the read sort across read and unread books, with the total on every page', async () => {
      await seedReading();
      const page = async (n: number, query: Partial<BookQuery> = {}) => {
        const slice = await search({ sort: { field: 'read', descending: true }, page: n, pageSize: 2, ...query });
        return { ids: slice.items.map((b) => b.id), total: slice.total };
      };
      expect(await page(1)).toEqual({ ids: ['b4', 'b3'], total: 5 });
      expect(await page(2)).toEqual({ ids: ['b2', 'b5'], total: 5 });
      expect(await page(3)).toEqual({ ids: ['b1'], total: 5 });
      expect(await page(1, { status: 'reading', q: 'title 3' })).toEqual({ ids: ['b3'], total: 1 });
      expect(await page(1, { status: 'unread' })).toEqual({ ids: ['b5', 'b1'], total: 2 });
    });
  });
}

describe.each(STORE_FACTORIES)('ProgressRepository contract ($name)', (factory) => progressRepositoryContract(factory));
