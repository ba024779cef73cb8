import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient, type Document } from 'mongodb';
import { toBookDocument } from '../../../src/adapters/mongo/mongo-book-documents.js';
import { MongoBookDigestRepository } from '../../../src/adapters/mongo/mongo-book-digest-repository.js';
import { MongoBookRepository } from '../../../src/adapters/mongo/mongo-book-repository.js';
import { openSchema } from '../../../src/adapters/mongo/mongo-schema.js';
import { aBook } from '../../support/builders.js';
import { mongoTestServer, MONGO_SERVER_NAMES, mongoServerKind } from '../../support/mongo-server.js';

let client: MongoClient;
const bookFinds: Document[] = [];
const digestsOf = (n: number) => ({ partialMd5: String(n).repeat(32).slice(0, 32), fileNameMd5: `f${n}`.repeat(16).slice(0, 32) });

beforeAll(async () => {
  client = new MongoClient((await mongoTestServer()).database(`stacks_digest_backfill_${process.pid}`), { monitorCommands: true });
  client.on('commandStarted', (event) => {
    if (event.commandName === 'find' && event.command.find === 'books') bookFinds.push(event.command.filter as Document);
  });
  await client.connect();
  await openSchema(client.db());
}, 60_000);
afterAll(async () => {
  await client?.db().dropDatabase().catch(() => undefined);
  await client?.close();
});

describe(`the KOReader digest backfill walks every book once, then only the marked ones (${MONGO_SERVER_NAMES[mongoServerKind()]})`, () => {
  it('walks the books stored before the mark once, marks those it finds without digests, and afterwards reads only marked books', async () => {
    const db = client.db();
    const legacy = ['b1', 'b2', 'b3', 'b4', 'b5'].map((id) => toBookDocument(aBook({ id })));
    await db.collection('books').insertMany(legacy as never[]);
    const digests = new MongoBookDigestRepository(db);
    await digests.putMany([{ bookId: 'b1', digests: digestsOf(1) }, { bookId: 'b2', digests: digestsOf(2) }]);

    expect(await digests.booksWithoutDigests(null, 10)).toEqual(['b3', 'b4', 'b5']);
    await digests.put('b3', digestsOf(3));
    await new MongoBookRepository(db).create(aBook({ id: 'b6' }));
    // Stored unmarked after the walk (as only an older Stacks would): no later run walks every book to find it.
    await db.collection('books').insertOne(toBookDocument(aBook({ id: 'b0' })) as never);
    bookFinds.length = 0;
    expect(await digests.booksWithoutDigests(null, 10)).toEqual(['b4', 'b5', 'b6']);
    expect(await digests.booksWithoutDigests('b4', 1)).toEqual(['b5']);
    expect(bookFinds.every((filter) => filter.digestsPending === true)).toBe(true);
    expect(bookFinds).toHaveLength(2);
  });
});
