import { beforeEach, describe, expect, it } from 'vitest';
import type { BookQuery } from '../../../src/domain/book.js';
import { aNobody, aReader, aWorld, errorOf, instant, type World } from '../../support/kit.js';

let w: World;
beforeEach(async () => {
  w = aWorld();
  await w.storeBook({ title: 'Dune', authors: ['Frank Herbert'], tags: ['sf'], createdAt: instant(1) });
  await w.storeBook({ title: 'Emma', authors: ['Jane Austen'], tags: ['romance'], createdAt: instant(2) });
  await w.storeBook({ title: 'Anathem', authors: ['Neal Stephenson'], tags: ['sf'], format: 'pdf', createdAt: instant(3) });
});

const query = (changes: Partial<BookQuery> = {}): BookQuery => ({ sort: { field: 'title', descending: false }, page: 1, pageSize: 20, ...changes });
const titles = (page: { items: readonly { title: string }[] }) => page.items.map((b) => b.title);

describe('ListBooks', () => {
  it('pages the library in the asked order', async () => {
    const first = await w.listBooks.execute(aReader(), query({ pageSize: 2 }));
    expect(first).toMatchObject({ total: 3, page: 1, pageSize: 2, totalPages: 2 });
    expect(titles(first)).toEqual(['Anathem', 'Dune']);
    expect(titles(await w.listBooks.execute(aReader(), query({ pageSize: 2, page: 2 })))).toEqual(['Emma']);
    expect(titles(await w.listBooks.execute(aReader(), query({ sort: { field: 'added', descending: true } })))).toEqual(['Anathem', 'Emma', 'Dune']);
  });

  it('searches and filters', async () => {
    expect(titles(await w.listBooks.execute(aReader(), query({ q: 'HERBERT' })))).toEqual(['Dune']);
    expect(titles(await w.listBooks.execute(aReader(), query({ tag: 'sf' })))).toEqual(['Anathem', 'Dune']);
    expect(titles(await w.listBooks.execute(aReader(), query({ tag: 'sf', format: 'epub' })))).toEqual(['Dune']);
    expect(await w.listBooks.execute(aReader(), query({ q: 'nothing like it' }))).toMatchObject({ items: [], total: 0, totalPages: 0 });
  });

  it('is permission_denied without books:read', async () => {
    expect(await errorOf(w.listBooks.execute(aNobody(), query()))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
  });

  it('filters by the caller\'s reading state and sorts by what the caller read last', async () => {
    const [dune, emma] = (await w.listBooks.execute(aReader(), query())).items.filter((b) => b.title !== 'Anathem').sort((a, b) => a.title.localeCompare(b.title));
    await w.updateProgress.execute(aReader(), { bookId: dune!.id, update: { percentage: 0.5 } });
    w.clock.advance(1_000);
    await w.updateProgress.execute(aReader(), { bookId: emma!.id, update: { percentage: 1 } });
    await w.updateProgress.execute(aReader('someone'), { bookId: emma!.id, update: { percentage: 0.2 } });
    expect(titles(await w.listBooks.execute(aReader(), query({ status: 'reading' })))).toEqual(['Dune']);
    expect(titles(await w.listBooks.execute(aReader(), query({ status: 'finished' })))).toEqual(['Emma']);
    expect(titles(await w.listBooks.execute(aReader(), query({ status: 'unread' })))).toEqual(['Anathem']);
    expect(titles(await w.listBooks.execute(aReader('someone'), query({ status: 'reading' })))).toEqual(['Emma']);
    expect(titles(await w.listBooks.execute(aReader(), query({ sort: { field: 'read', descending: true } })))).toEqual(['Emma', 'Dune', 'Anathem']);
  });
});
