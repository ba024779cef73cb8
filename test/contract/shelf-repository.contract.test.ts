import { beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../src/domain/errors.js';
import type { Shelf } from '../../src/domain/shelf.js';
import { SHELF_BOOKS_MAX } from '../../src/domain/shelf-rules.js';
import { aBook, aShelf, instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { itWhere, STORE_FACTORIES, useStore } from './stores.js';

const ADA = { id: 'u-ada', username: 'ada' };
const BOB = { id: 'u-bob', username: 'bob' };
const BOOK_IDS = ['k1', 'k2', 'k3', 'k4', 'k5'];
/** The most books one shelf holds in the stores of the cap's tests (10,000 books per test would take minutes). */
const CAP = 150;

function shelfRepositoryContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const shelves = () => store().shelves;
  const bookIdsOf = async (id: string) => (await shelves().findById(id))?.bookIds;

  beforeEach(async () => {
    for (const id of BOOK_IDS) await store().books.create(aBook({ id }));
  });

  describe('records', () => {
    it('creates a shelf with its ordered books and finds it', async () => {
      const shelf = aShelf({ owner: ADA, description: 'd', isPublic: true, bookIds: ['k3', 'k1', 'k2'] });
      await shelves().create(shelf);
      expect(await shelves().findById(shelf.id)).toEqual(shelf);
    });

    it('keeps the first of repeated book ids', async () => {
      const shelf = aShelf({ bookIds: ['k2', 'k1', 'k2'] });
      await shelves().create(shelf);
      expect(await shelves().findById(shelf.id)).toMatchObject({ bookIds: ['k2', 'k1'], bookCount: 2 });
    });

    it('returns null or false for absent shelves', async () => {
      expect(await shelves().findById('missing')).toBeNull();
      expect(await shelves().delete('missing')).toBe(false);
      expect(await shelves().removeBook('missing', 'k1', instant(9))).toBe(false);
      expect(await shelves().bookIdsPage('missing', { page: 1, pageSize: 10 })).toEqual({ items: [], total: 0 });
    });

    it('refuses books that do not exist, saving nothing', async () => {
      const shelf = aShelf({ bookIds: ['k1', 'nope'] });
      const error = await shelves().create(shelf).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).toMatchObject({ code: 'book_not_found' });
      expect(await shelves().findById(shelf.id)).toBeNull();
      const kept = aShelf({ bookIds: ['k1'] });
      await shelves().create(kept);
      await expect(shelves().addBook(kept.id, 'nope', instant(9))).rejects.toMatchObject({ code: 'book_not_found' });
      await expect(shelves().replaceBooks(kept.id, ['k2', 'nope'], instant(9))).rejects.toMatchObject({ code: 'book_not_found' });
      expect(await shelves().findById(kept.id)).toEqual(kept);
    });

    it('refuses to change the books of a shelf that does not exist', async () => {
      await expect(shelves().addBook('missing', 'k1', instant(9))).rejects.toMatchObject({ code: 'shelf_not_found' });
      await expect(shelves().replaceBooks('missing', ['k1'], instant(9))).rejects.toMatchObject({ code: 'shelf_not_found' });
    });

    itWhere(factory, 'uniqueIndexes')('keeps shelf names unique per owner, ignoring letter case and outer spaces', async () => {
      await shelves().create(aShelf({ owner: ADA, name: 'Favourites' }));
      const error = await shelves().create(aShelf({ owner: ADA, name: ' FAVOURITES ' })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConflictError);
      expect(error).toMatchObject({ code: 'shelf_name_taken' });
      await shelves().create(aShelf({ owner: BOB, name: 'Favourites' }));
      expect((await shelves().listVisible(BOB.id, true, { page: 1, pageSize: 10 })).total).toBe(1);
    });

    itWhere(factory, 'uniqueIndexes')('compares shelf names after NFC, full case folding and without invisible characters', async () => {
      const pairs = [['Caf\u00e9', 'Cafe\u0301'], ['Stra\u00dfe', 'STRASSE'], ['Night Reading', 'Night\u200b Reading'],
        ['\ufb01ction', 'FICTION'], ['\u0399\u03a3\u03a4\u039f\u03a1\u0399\u0391', '\u03b9\u03c3\u03c4\u03bf\u03c1\u03b9\u03b1'],
        ['Co\u00adop', 'coop'], ['\u2060Poems\ufeff', 'poems'], ['\u1e9ee', 'sse']];
      for (const [first, second] of pairs) {
        const kept = aShelf({ owner: ADA, name: first as string });
        await shelves().create(kept);
        const error = await shelves().create(aShelf({ owner: ADA, name: second as string })).catch((e: unknown) => e);
        expect(error, `${first} / ${second}`).toMatchObject({ code: 'shelf_name_taken' });
        await shelves().create(aShelf({ owner: BOB, name: second as string }));
      }
      for (const distinct of ['K\u0131rm\u0131z\u0131', 'Kirmizi', 'Cafe', 'Night  Reading', 'Strase']) await shelves().create(aShelf({ owner: ADA, name: distinct }));
    });

    itWhere(factory, 'uniqueIndexes')('updates only the given details and updatedAt, keeping names unique', async () => {
      const shelf = aShelf({ owner: ADA, name: 'Old', description: 'kept', bookIds: ['k1'] });
      await shelves().create(shelf);
      await shelves().create(aShelf({ owner: ADA, name: 'Taken' }));
      expect(await shelves().updateDetails(shelf.id, { name: 'New', isPublic: true }, instant(900))).toBe(true);
      expect(await shelves().findById(shelf.id)).toEqual({ ...shelf, name: 'New', isPublic: true, updatedAt: instant(900) });
      expect(await shelves().updateDetails(shelf.id, { description: null }, instant(901))).toBe(true);
      expect(await shelves().findById(shelf.id)).toEqual({ ...shelf, name: 'New', description: null, isPublic: true, updatedAt: instant(901) });
      await shelves().updateDetails(shelf.id, { name: 'NEW' }, instant(902));
      await expect(shelves().updateDetails(shelf.id, { name: 'taken' }, instant(903))).rejects.toMatchObject({ code: 'shelf_name_taken' });
      expect((await shelves().findById(shelf.id))?.name).toBe('NEW');
      await shelves().create(aShelf({ owner: ADA, name: 'Old' }));
      expect(await shelves().updateDetails('missing', { name: 'Ghost' }, instant(904))).toBe(false);
      expect(await shelves().findById('missing')).toBeNull();
    });

    it('keeps a detail changed between another writer\'s read and its write', async () => {
      const shelf = aShelf({ owner: ADA, name: 'Before', isPublic: false, bookIds: ['k1'] });
      await shelves().create(shelf);
      const read = await shelves().findById(shelf.id);
      await shelves().updateDetails(shelf.id, { isPublic: true }, instant(910));
      await shelves().updateDetails(shelf.id, { name: 'After' }, instant(911));
      expect(await shelves().findById(shelf.id)).toEqual({ ...read, name: 'After', isPublic: true, updatedAt: instant(911) });
    });

    it('keeps both of two detail changes sent at once, for each of 20 shelves', async () => {
      const twenty = Array.from({ length: 20 }, (_, i) => aShelf({ owner: ADA, name: `Shelf ${i}`, isPublic: false }));
      for (const shelf of twenty) await shelves().create(shelf);
      await Promise.all(twenty.flatMap((shelf, i) => [
        shelves().updateDetails(shelf.id, { name: `Renamed ${i}` }, instant(920)),
        shelves().updateDetails(shelf.id, { isPublic: true }, instant(920)),
      ]));
      for (const [i, shelf] of twenty.entries()) {
        expect(await shelves().findById(shelf.id)).toMatchObject({ name: `Renamed ${i}`, isPublic: true });
      }
    });

    it('deletes a shelf but not its books, and frees its name', async () => {
      const shelf = aShelf({ owner: ADA, name: 'Gone', bookIds: ['k1'] });
      await shelves().create(shelf);
      expect(await shelves().delete(shelf.id)).toBe(true);
      expect(await shelves().findById(shelf.id)).toBeNull();
      expect((await store().books.existingIds(['k1'])).has('k1')).toBe(true);
      await shelves().create(aShelf({ owner: ADA, name: 'gone' }));
    });

    it('hands out copies', async () => {
      const shelf = aShelf({ bookIds: ['k1'] });
      await shelves().create(shelf);
      (shelf.bookIds as string[]).push('k2');
      const found = (await shelves().findById(shelf.id)) as Shelf;
      (found.bookIds as string[]).push('k3');
      (found.owner as { username: string }).username = 'mallory';
      found.updatedAt.setTime(0);
      expect(await shelves().findById(shelf.id)).toMatchObject({ bookIds: ['k1'], owner: { username: 'owner1' }, updatedAt: shelf.updatedAt });
    });
  });

  describe('membership', () => {
    let shelf: Shelf;
    beforeEach(async () => {
      shelf = aShelf({ bookIds: ['k1', 'k2'], updatedAt: instant(0) });
      await shelves().create(shelf);
    });

    it('appends at the end and moves updatedAt', async () => {
      expect(await shelves().addBook(shelf.id, 'k4', instant(10))).toBe(true);
      expect(await shelves().addBook(shelf.id, 'k3', instant(11))).toBe(true);
      expect(await shelves().findById(shelf.id)).toMatchObject({ bookIds: ['k1', 'k2', 'k4', 'k3'], bookCount: 4, updatedAt: instant(11) });
    });

    it('adding a book already there changes nothing', async () => {
      expect(await shelves().addBook(shelf.id, 'k1', instant(10))).toBe(false);
      expect(await shelves().findById(shelf.id)).toEqual(shelf);
    });

    it('removes a book, keeps the rest in order, and says whether it was there', async () => {
      await shelves().addBook(shelf.id, 'k3', instant(5));
      expect(await shelves().removeBook(shelf.id, 'k2', instant(10))).toBe(true);
      expect(await shelves().findById(shelf.id)).toMatchObject({ bookIds: ['k1', 'k3'], bookCount: 2, updatedAt: instant(10) });
      expect(await shelves().removeBook(shelf.id, 'k2', instant(20))).toBe(false);
      expect((await shelves().findById(shelf.id))?.updatedAt).toEqual(instant(10));
      await shelves().addBook(shelf.id, 'k2', instant(30));
      expect(await bookIdsOf(shelf.id)).toEqual(['k1', 'k3', 'k2']);
      await shelves().removeBook(shelf.id, 'k2', instant(31));
      await shelves().addBook(shelf.id, 'k5', instant(32));
      expect(await bookIdsOf(shelf.id)).toEqual(['k1', 'k3', 'k5']);
    });

    it('replaces the whole membership in the order given', async () => {
      await shelves().replaceBooks(shelf.id, ['k5', 'k2', 'k4'], instant(10));
      expect(await shelves().findById(shelf.id)).toMatchObject({ bookIds: ['k5', 'k2', 'k4'], bookCount: 3, updatedAt: instant(10) });
      await shelves().replaceBooks(shelf.id, [], instant(11));
      expect(await shelves().findById(shelf.id)).toMatchObject({ bookIds: [], bookCount: 0 });
      await shelves().addBook(shelf.id, 'k1', instant(12));
      expect(await bookIdsOf(shelf.id)).toEqual(['k1']);
    });

    it('removes a book from every shelf, moving updatedAt only where it was', async () => {
      const other = aShelf({ bookIds: ['k2', 'k3'], updatedAt: instant(0) });
      const without = aShelf({ bookIds: ['k3'], updatedAt: instant(0) });
      for (const s of [other, without]) await shelves().create(s);
      await shelves().removeBookEverywhere('k2', instant(50));
      expect(await shelves().findById(shelf.id)).toMatchObject({ bookIds: ['k1'], bookCount: 1, updatedAt: instant(50) });
      expect(await shelves().findById(other.id)).toMatchObject({ bookIds: ['k3'], bookCount: 1, updatedAt: instant(50) });
      expect(await shelves().findById(without.id)).toEqual(without);
    });

    it('loses a book from its shelves when the book is deleted', async () => {
      await store().books.delete('k1');
      expect(await shelves().findById(shelf.id)).toMatchObject({ bookIds: ['k2'], bookCount: 1 });
      expect(await shelves().bookIdsPage(shelf.id, { page: 1, pageSize: 10 })).toEqual({ items: ['k2'], total: 1 });
    });

    itWhere(factory, 'transactions')('two book lists sent at once end as one of them, never mixed, never a 500 (needs a replica set\'s transaction isolation)', async () => {
      const first = ['k1', 'k2', 'k3'];
      const second = ['k5', 'k4'];
      for (let round = 0; round < 10; round++) {
        await Promise.all([shelves().replaceBooks(shelf.id, first, instant(20)), shelves().replaceBooks(shelf.id, second, instant(21))]);
        expect([first, second]).toContainEqual(await bookIdsOf(shelf.id));
        const page = await shelves().bookIdsPage(shelf.id, { page: 1, pageSize: 10 });
        expect(page.items).toEqual(await bookIdsOf(shelf.id));
      }
    });

    itWhere(factory, 'transactions')('adding a book while it is deleted never leaves an entry for a deleted book (needs a replica set\'s transaction isolation)', async () => {
      for (const id of ['k3', 'k4', 'k5']) {
        const added = shelves().addBook(shelf.id, id, instant(20)).catch((error: unknown) => {
          expect(error).toBeInstanceOf(NotFoundError);
          return false;
        });
        await Promise.all([added, store().books.delete(id).then(() => shelves().removeBookEverywhere(id, instant(21)))]);
        expect(await bookIdsOf(shelf.id)).not.toContain(id);
        expect((await shelves().bookIdsPage(shelf.id, { page: 1, pageSize: 10 })).items).not.toContain(id);
      }
    });

    it('adds several books at once, each at its own place after the ones already there', async () => {
      await Promise.all(['k3', 'k4', 'k5'].map((id, i) => shelves().addBook(shelf.id, id, instant(20 + i))));
      const ids = await bookIdsOf(shelf.id);
      expect(ids?.slice(0, 2)).toEqual(['k1', 'k2']);
      expect([...(ids ?? [])].sort()).toEqual(['k1', 'k2', 'k3', 'k4', 'k5']);
      expect((await shelves().bookIdsPage(shelf.id, { page: 1, pageSize: 10 })).items).toEqual(ids);
    });

    it('pages through book ids in shelf order', async () => {
      await shelves().replaceBooks(shelf.id, ['k5', 'k3', 'k1', 'k4', 'k2'], instant(10));
      const page = (n: number) => shelves().bookIdsPage(shelf.id, { page: n, pageSize: 2 });
      expect(await page(1)).toEqual({ items: ['k5', 'k3'], total: 5 });
      expect(await page(2)).toEqual({ items: ['k1', 'k4'], total: 5 });
      expect(await page(3)).toEqual({ items: ['k2'], total: 5 });
      expect(await page(4)).toEqual({ items: [], total: 5 });
    });
  });

  describe(`the most books one shelf holds (${CAP} in these stores; SHELF_BOOKS_MAX, ${SHELF_BOOKS_MAX}, in service)`, () => {
    const capped = useStore(factory, { shelfBooksMax: CAP });
    /** A shelf holding `count` books (created for it), and `extra` more books not on it. */
    const fullShelf = async (count: number, extra: number) => {
      const ids = Array.from({ length: count + extra }, (_, i) => `cap${i}`);
      for (const id of ids) await capped().books.create(aBook({ id }));
      const shelf = aShelf({ owner: ADA, bookIds: ids.slice(0, count) });
      await capped().shelves.create(shelf);
      return { shelf, spare: ids.slice(count) };
    };

    it('refuses a book past it and leaves the shelf as it was; a book already there is still no change', async () => {
      const { shelf, spare } = await fullShelf(CAP, 1);
      await expect(capped().shelves.addBook(shelf.id, spare[0]!, instant(900))).rejects.toMatchObject({ code: 'validation_failed' });
      expect(await capped().shelves.addBook(shelf.id, 'cap0', instant(900))).toBe(false);
      expect(await capped().shelves.findById(shelf.id)).toMatchObject({ bookCount: CAP, updatedAt: shelf.updatedAt });
    });

    itWhere(factory, 'transactions')(`takes exactly ${CAP} when 100 books are added at once to a shelf of ${CAP - 50} (needs a replica set's transaction isolation)`, async () => {
      const { shelf, spare } = await fullShelf(CAP - 50, 100);
      const outcomes = await Promise.allSettled(spare.map((id) => capped().shelves.addBook(shelf.id, id, instant(900))));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(50);
      expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason.code)).toEqual(Array(50).fill('validation_failed'));
      expect((await capped().shelves.findById(shelf.id))?.bookCount).toBe(CAP);
    });
  });

  describe('listVisible', () => {
    beforeEach(async () => {
      await shelves().create(aShelf({ id: 's-a1', owner: ADA, name: 'zebra', isPublic: false, bookIds: ['k1', 'k2'] }));
      await shelves().create(aShelf({ id: 's-a2', owner: ADA, name: 'Apple', isPublic: true }));
      await shelves().create(aShelf({ id: 's-b1', owner: BOB, name: 'banana', isPublic: true, bookIds: ['k3'] }));
      await shelves().create(aShelf({ id: 's-b2', owner: BOB, name: 'Cherry', isPublic: false }));
      await shelves().create(aShelf({ id: 's-b0', owner: BOB, name: 'APPLE', isPublic: true }));
    });
    const list = (ownerId: string, onlyOwn: boolean, page = 1, pageSize = 10) =>
      shelves().listVisible(ownerId, onlyOwn, { page, pageSize });
    const idsOf = async (slice: Promise<{ items: Shelf[]; total: number }>) => {
      const { items, total } = await slice;
      return { ids: items.map((s) => s.id), total };
    };

    it('lists own shelves and every public one, by name in any case, then id', async () => {
      expect(await idsOf(list(ADA.id, false))).toEqual({ ids: ['s-a2', 's-b0', 's-b1', 's-a1'], total: 4 });
      expect(await idsOf(list(BOB.id, false))).toEqual({ ids: ['s-a2', 's-b0', 's-b1', 's-b2'], total: 4 });
    });

    it('lists only own shelves when asked', async () => {
      expect(await idsOf(list(ADA.id, true))).toEqual({ ids: ['s-a2', 's-a1'], total: 2 });
      expect(await idsOf(list('u-nobody', true))).toEqual({ ids: [], total: 0 });
    });

    it('carries each shelf\'s books and count', async () => {
      const { items } = await list(ADA.id, true);
      expect(items.map((s) => [s.bookIds, s.bookCount])).toEqual([[[], 0], [['k1', 'k2'], 2]]);
      expect(items[1]).toEqual(await shelves().findById('s-a1'));
    });

    it('pages with the total on every page', async () => {
      expect(await idsOf(list(ADA.id, false, 2, 3))).toEqual({ ids: ['s-a1'], total: 4 });
      expect(await idsOf(list(ADA.id, false, 3, 3))).toEqual({ ids: [], total: 4 });
    });
  });
}

describe.each(STORE_FACTORIES)('ShelfRepository contract ($name)', (factory) => shelfRepositoryContract(factory));
