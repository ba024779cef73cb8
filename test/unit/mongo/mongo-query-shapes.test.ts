import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient, type CommandStartedEvent, type Document } from 'mongodb';
import { LIBRARY_INDEXES } from '../../../src/adapters/mongo/mongo-library-indexes.js';
import { backfillSearchTokens } from '../../../src/adapters/mongo/mongo-library-migration.js';
import { openSchema } from '../../../src/adapters/mongo/mongo-schema.js';
import { toBookDocument } from '../../../src/adapters/mongo/mongo-book-documents.js';
import { QUERY_SHAPES, type QueryShape } from '../../../src/adapters/mongo/mongo-query-shapes.js';
import { MongoBookRepository } from '../../../src/adapters/mongo/mongo-book-repository.js';
import { MongoShelfRepository } from '../../../src/adapters/mongo/mongo-shelf-repository.js';
import { MongoProgressRepository } from '../../../src/adapters/mongo/mongo-progress-repository.js';
import { BOOK_SORTS, type BookQuery } from '../../../src/domain/book.js';
import { mongoTestServer } from '../../support/mongo-server.js';
import { aBook, aShelf } from '../../support/builders.js';

type Keys = Readonly<Record<string, 1 | -1>>;

function indexKey(shape: QueryShape): Keys | undefined {
  if (shape.index === '_id_') return { _id: 1 };
  return LIBRARY_INDEXES[shape.collection].find((index) => index.name === shape.index)?.key as Keys | undefined;
}

/** Why the shape cannot use its index (equality prefix, then sort keys in one direction), or null when it can. */
export function indexProblem(shape: QueryShape): string | null {
  if (shape.scan !== undefined) return null;
  const key = indexKey(shape);
  if (!key) return `no index named ${shape.index}`;
  const fields = Object.keys(key);
  const used = shape.filter.filter((f) => fields.includes(f));
  if (!fields.slice(0, used.length).every((f) => used.includes(f))) return `filter ${used.join(',')} is not a prefix of ${fields.join(',')}`;
  if (shape.inMemorySort) return used.length > 0 ? null : 'sorts in memory without a selective filter';
  // A sort may name filtered fields of the index (an `$in` over several shelves walks each one's range in
  // turn; a range on `_id` after an equality is read in `_id` order): the rest of the sort must follow them.
  const sort = Object.entries(shape.sort ?? {}).filter(([f]) => !used.includes(f));
  if (used.length === 0 && sort.length === 0) return 'neither filter nor sort uses the index';
  const following = fields.slice(used.length, used.length + sort.length);
  if (following.join() !== sort.map(([f]) => f).join()) return `sort ${sort.map(([f]) => f).join(',')} does not follow the filter in ${fields.join(',')}`;
  const same = sort.every(([f, d]) => key[f] === d);
  const opposite = sort.every(([f, d]) => key[f] === -d);
  return same || opposite ? null : 'sort directions match neither way through the index';
}

const shapeId = (collection: string, filter: readonly string[], sort?: Keys) =>
  `${collection} filter[${[...filter].sort().join(',')}] sort[${Object.entries(sort ?? {}).map(([f, d]) => `${f}:${d}`).join(',')}]`;

/** The shapes (one per `$or` branch) a command sends, or none when it reads no documents by filter. */
function shapesOf(event: CommandStartedEvent): string[] {
  const c: Document = event.command;
  const of = (collection: string, filter: Document | undefined, sortSent?: Keys | Map<string, 1 | -1>) => {
    const f = filter ?? {};
    const sort = sortSent instanceof Map ? Object.fromEntries(sortSent) as Keys : sortSent;
    const branches: Document[] = Array.isArray(f.$or) ? (f.$or as Document[]) : [f];
    return branches.map((b) => shapeId(collection, Object.keys(b), sort));
  };
  switch (event.commandName) {
    case 'find': return of(c.find as string, c.filter as Document, c.sort as Keys);
    case 'findAndModify': return of(c.findAndModify as string, c.query as Document, c.sort as Keys);
    case 'update': return (c.updates as Document[]).flatMap((u) => of(c.update as string, u.q as Document));
    case 'delete': return (c.deletes as Document[]).flatMap((d) => of(c.delete as string, d.q as Document));
    case 'aggregate': return of(c.aggregate as string, (c.pipeline as Document[])[0]?.$match as Document | undefined);
    case 'count': return c.query && Object.keys(c.query as Document).length > 0 ? of(c.count as string, c.query as Document) : [];
    default: return [];
  }
}

describe('Mongo query shapes', () => {
  it.each(QUERY_SHAPES.map((s) => [shapeId(s.collection, s.filter, s.sort), s] as const))('%s uses its declared index', (_, shape) => {
    expect(indexProblem(shape)).toBeNull();
  });

  it('refuses a shape whose filter no index starts with, or whose sort no index follows', () => {
    expect(indexProblem({ collection: 'books', filter: ['description'], index: 'books_title' })).not.toBeNull();
    expect(indexProblem({ collection: 'books', filter: ['format'], sort: { titleKey: 1, _id: -1 }, index: 'books_format_title' })).not.toBeNull();
    expect(indexProblem({ collection: 'books', filter: ['format'], sort: { createdAt: 1, _id: 1 }, index: 'books_format_title' })).not.toBeNull();
    expect(indexProblem({ collection: 'books', filter: [], sort: { titleKey: 1 }, index: 'books_gone' })).not.toBeNull();
  });

  describe('every command the repositories send matches a declared shape (on the Mongo test server)', () => {
    let client: MongoClient;
    const seen = new Set<string>();
    const unlimited: string[] = [];
    let repositoriesRunning = false;
    beforeAll(async () => {
      const server = await mongoTestServer();
      client = new MongoClient(server.database(`stacks_shapes_${process.pid}`), { monitorCommands: true });
      client.on('commandStarted', (event) => {
        const shapes = shapesOf(event);
        shapes.forEach((s) => seen.add(s));
        const reads = ['find', 'aggregate', 'count'].includes(event.commandName) && shapes.length > 0;
        if (repositoriesRunning && reads && event.command.maxTimeMS === undefined) unlimited.push(shapes[0] ?? '');
      });
      await client.connect();
      await openSchema(client.db());
    });
    afterAll(async () => {
      await client.db().dropDatabase().catch(() => undefined);
      await client.close();
    });

    it('books, shelves and shelf_books, each read with maxTimeMS', async () => {
      const db = client.db();
      repositoriesRunning = true;
      const books = new MongoBookRepository(db);
      const shelves = new MongoShelfRepository(db);
      const at = new Date('2026-01-01T00:00:00Z');
      for (let i = 1; i <= 5; i++) await books.create(aBook({ id: `b${i}`, authors: ['Ann'], tags: ['SF'] }));
      await books.updateMetadata('b1', { title: 'Renamed' }, at);
      await books.findBySha256('0'.repeat(64));
      await books.findByIds(['b1', 'b2']);
      await books.existingIds(['b1']);
      const { searchGramsVersion: _unmarked, ...olderGrams } = toBookDocument(aBook({ id: 'b6', title: 'Older grams' }));
      await db.collection('books').insertOne(olderGrams as never);
      const searchEverything = async (queries: readonly Partial<BookQuery>[]) => {
        for (const field of BOOK_SORTS) {
          for (const descending of [false, true]) {
            for (const extra of queries) {
              for (const page of [1, 2, 4]) await books.search({ page, pageSize: 1, sort: { field, descending }, ...extra });
            }
          }
        }
      };
      await searchEverything([{ q: 'book' }, { q: 'ook' }, { q: 'oo' }, { q: 'o' }]);
      repositoriesRunning = false; // housekeeping cursors run as long as the library needs, without maxTimeMS
      await backfillSearchTokens(db);
      repositoriesRunning = true;
      await searchEverything([{}, { format: 'epub' }, { q: 'book' }, { q: 'ook' }, { q: 'oo' }, { q: 'o' }, { q: 'o', author: 'ann' }, { author: 'ann' },
        { tag: 'sf' }, { q: 'book', tag: 'sf' }, { author: 'ann', tag: 'sf' }]);
      const progress = new MongoProgressRepository(db);
      for (const [bookId, status] of [['b1', 'reading'], ['b2', 'finished'], ['b4', 'unread']] as const) {
        await progress.put({ userId: 'u1', bookId, status, percentage: 0.5, locator: null, device: null, deviceId: null, updatedAt: at });
      }
      await searchEverything([{ reader: 'u1' }, { reader: 'u1', status: 'reading' }, { reader: 'u1', status: 'unread' }, { reader: 'u1', status: 'unread', tag: 'sf' },
        { reader: 'u1', status: 'finished', q: 'book' }]);
      await shelves.create(aShelf({ id: 's1', bookIds: ['b1', 'b2'], owner: { id: 'u1', username: 'u1' } }));
      await shelves.addBook('s1', 'b3', at);
      await shelves.replaceBooks('s1', ['b3', 'b1'], at);
      await shelves.removeBook('s1', 'b1', at);
      await shelves.updateDetails('s1', { name: 'Other' }, at);
      await shelves.listVisible('u1', false, { page: 1, pageSize: 10 });
      await shelves.listVisible('u1', true, { page: 1, pageSize: 10 });
      await shelves.bookIdsPage('s1', { page: 1, pageSize: 10 });
      await shelves.findById('s1');
      await books.delete('b3');
      await shelves.removeBookEverywhere('b2', at);
      await shelves.delete('s1');
      const declared = new Set(QUERY_SHAPES.map((s) => shapeId(s.collection, s.filter, s.sort)));
      const library = [...seen].filter((s) => /^(books|shelves|shelf_books) /.test(s));
      expect(library.length).toBeGreaterThan(10);
      expect(library.filter((s) => !declared.has(s))).toEqual([]);
      expect(unlimited, 'reads sent without maxTimeMS').toEqual([]);
    });
  });
});
