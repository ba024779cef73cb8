import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient } from 'mongodb';
import { openSchema } from '../../../src/adapters/mongo/mongo-schema.js';
import { MongoBookRepository } from '../../../src/adapters/mongo/mongo-book-repository.js';
import { QUERY_MAX_TIME_MS } from '../../../src/adapters/mongo/mongo-transactions.js';
import type { BookQuery } from '../../../src/domain/book.js';
import { aBook } from '../../support/builders.js';
import { mongoTestServer } from '../../support/mongo-server.js';

const BOOKS = 21;
const PAGE_SIZE = 2;

describe('deep pages of a book search skip at most half the matches, within maxTimeMS (on the Mongo test server)', () => {
  let client: MongoClient;
  let books: MongoBookRepository;
  const finds: { skip: number; maxTimeMS: unknown }[] = [];

  beforeAll(async () => {
    client = new MongoClient((await mongoTestServer()).database(`stacks_deep_pages_${process.pid}`), { monitorCommands: true });
    client.on('commandStarted', (event) => {
      if (event.commandName === 'find' && event.command.find === 'books') {
        finds.push({ skip: Number(event.command.skip ?? 0), maxTimeMS: event.command.maxTimeMS });
      }
    });
    await client.connect();
    await openSchema(client.db());
    books = new MongoBookRepository(client.db());
    for (let i = 1; i <= BOOKS; i++) await books.create(aBook({ id: `b${String(i).padStart(2, '0')}`, title: `Title ${i}`, tags: ['sf'] }));
  }, 60_000);
  afterAll(async () => {
    await client.db().dropDatabase().catch(() => undefined);
    await client.close();
  });

  it.each([
    ['unfiltered, by title', {}],
    ['filtered by tag (selective index, sorted by the server), by title', { tag: 'sf' }],
  ] as const)('%s: every page equals that slice of the whole order, and no find skips more than half the matches', async (_, extra) => {
    const query = (page: number, pageSize: number): BookQuery => ({ page, pageSize, sort: { field: 'title', descending: false }, ...extra });
    const whole = (await books.search(query(1, 100))).items.map((b) => b.id);
    expect(whole).toHaveLength(BOOKS);
    finds.length = 0;
    const pages = Math.ceil(BOOKS / PAGE_SIZE);
    for (let page = 1; page <= pages; page++) {
      const { items, total } = await books.search(query(page, PAGE_SIZE));
      expect(total).toBe(BOOKS);
      expect(items.map((b) => b.id)).toEqual(whole.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE));
    }
    expect(finds).toHaveLength(pages);
    expect(Math.max(...finds.map((f) => f.skip))).toBeLessThanOrEqual(Math.floor(BOOKS / 2));
    expect(finds.every((f) => f.maxTimeMS === QUERY_MAX_TIME_MS)).toBe(true);
  });

  it('sends no find at all for a page past the last one', async () => {
    finds.length = 0;
    expect(await books.search({ page: 1_000_000, pageSize: 100, sort: { field: 'title', descending: true } })).toEqual({ items: [], total: BOOKS });
    expect(finds).toEqual([]);
  });
});
