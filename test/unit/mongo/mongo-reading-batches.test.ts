import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient, type Document } from 'mongodb';
import { createMemoryStore } from '../../../src/adapters/memory/memory-store.js';
import { MongoBookRepository } from '../../../src/adapters/mongo/mongo-book-repository.js';
import { MongoProgressRepository } from '../../../src/adapters/mongo/mongo-progress-repository.js';
import { openSchema } from '../../../src/adapters/mongo/mongo-schema.js';
import type { BookRepository } from '../../../src/application/ports.js';
import type { BookQuery } from '../../../src/domain/book.js';
import type { ReadingStatus } from '../../../src/domain/reading-progress.js';
import { aBook, instant } from '../../support/builders.js';
import { mongoTestServer, MONGO_SERVER_NAMES, mongoServerKind } from '../../support/mongo-server.js';

/** Records per round trip in these tests: the reader's 14 records take several batches. */
const BATCH = 3;
const STATUSES: readonly (ReadingStatus | undefined)[] = [undefined, 'reading', 'finished', 'unread'];

let client: MongoClient;
let mongo: MongoBookRepository;
let memory: BookRepository;
const inSizes: number[] = [];

/** Every `$in` list the repository sends, by its length (the bound on what one round trip carries). */
function recordInLists(command: Document): void {
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === '$in' && Array.isArray(inner)) inSizes.push(inner.length);
        visit(inner);
      }
    }
  };
  visit(command.filter ?? command.pipeline ?? command.query);
}

beforeAll(async () => {
  client = new MongoClient((await mongoTestServer()).database(`stacks_reading_batches_${process.pid}`), { monitorCommands: true });
  client.on('commandStarted', (event) => recordInLists(event.command));
  await client.connect();
  await openSchema(client.db());
  mongo = new MongoBookRepository(client.db(), BATCH);
  const store = createMemoryStore();
  memory = store.books;
  const progress = new MongoProgressRepository(client.db());
  for (let i = 0; i < 24; i++) {
    const book = aBook({ id: `b${String(i).padStart(2, '0')}`, title: `Title ${(i * 7) % 24}`, tags: i % 3 === 0 ? ['sf'] : [], createdAt: instant(1_000 + i) });
    await mongo.create(book);
    await memory.create(book);
  }
  const statusOf = (i: number): ReadingStatus => (['reading', 'finished', 'unread'] as const)[i % 3]!;
  for (let i = 0; i < 14; i++) {
    const record = { userId: 'ann', bookId: `b${String((i * 5) % 24).padStart(2, '0')}`, status: statusOf(i), percentage: 0.5, locator: null,
      device: null, deviceId: null, updatedAt: instant(2_000 + ((i * 11) % 14)) };
    await progress.put(record);
    await store.progress.put(record);
  }
}, 120_000);
afterAll(async () => {
  await client?.db().dropDatabase().catch(() => undefined);
  await client?.close();
});

const slice = async (books: BookRepository, query: BookQuery) => {
  const { items, total } = await books.search(query);
  return { ids: items.map((b) => b.id), total };
};

describe(`status filters and the read order walk the reader's records ${BATCH} at a time (${MONGO_SERVER_NAMES[mongoServerKind()]})`, () => {
  const cases = STATUSES.flatMap((status) => (['title', 'added', 'read'] as const).flatMap((field) => [false, true].flatMap((descending) =>
    [{}, { tag: 'sf' }].map((extra) => ({ status, field, descending, extra })))));

  it.each(cases.map((c) => [`status ${c.status ?? 'any'}, sort ${c.descending ? '-' : ''}${c.field}${c.extra.tag ? ', tag sf' : ''}`, c] as const))(
    '%s: every page equals the memory store\'s, with the same total', async (_, c) => {
      for (const pageSize of [2, 5]) {
        for (let page = 1; page <= Math.ceil(24 / pageSize) + 1; page++) {
          const query: BookQuery = { reader: 'ann', page, pageSize, sort: { field: c.field, descending: c.descending }, ...(c.status ? { status: c.status } : {}), ...c.extra };
          expect(await slice(mongo, query), `page ${page} of ${pageSize}`).toEqual(await slice(memory, query));
        }
      }
    });

  it('never sends a list longer than one batch of records or one page (5), however many records the reader has (14)', () => {
    expect(inSizes.length).toBeGreaterThan(0);
    expect(Math.max(...inSizes)).toBeLessThanOrEqual(Math.max(BATCH, 5));
  });
});
