import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient, MongoServerError, ObjectId, type Db } from 'mongodb';
import { GridFsBlobStore } from '../../../src/adapters/mongo/grid-fs-blob-store.js';
import { interceptFirstCall } from '../../support/mongo-intercept.js';
import { mongoTestServer, MONGO_SERVER_NAMES, mongoServerKind } from '../../support/mongo-server.js';

let client: MongoClient;
let databases = 0;

beforeAll(async () => {
  client = new MongoClient((await mongoTestServer()).database('unused'));
  await client.connect();
}, 60_000);
afterAll(async () => client?.close());

async function freshDb(): Promise<Db> {
  const db = client.db(`stacks_gridfs_writes_${process.pid}_${++databases}`);
  await db.dropDatabase();
  return db;
}

const text = async (stream: AsyncIterable<Uint8Array> | null) => {
  const parts: Buffer[] = [];
  for await (const part of stream ?? []) parts.push(Buffer.from(part));
  return Buffer.concat(parts).toString();
};

/** What a primary stepping down answers a write, with the label the driver retries a retryable write on. */
const steppedDown = () => Promise.reject(new MongoServerError({ ok: 0, code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary', errorLabels: ['RetryableWriteError'] }));

describe(`GridFS writes (${MONGO_SERVER_NAMES[mongoServerKind()]})`, () => {
  it('removes only the files older than the one just uploaded under its name: a newer one, completed by another upload meanwhile, stays', async () => {
    const db = await freshDb();
    const blobs = new GridFsBlobStore(db);
    await blobs.putBytes('b1.book', Buffer.from('first'));
    const newer = { _id: new ObjectId(), filename: 'b1.book', uploadDate: new Date(Date.now() + 3_600_000), length: 5, chunkSize: 261_120 };
    await db.collection('fs.chunks').insertOne({ files_id: newer._id, n: 0, data: Buffer.from('newer') });
    await db.collection('fs.files').insertOne(newer);
    await blobs.putBytes('b1.book', Buffer.from('second'));
    const kept = (await db.collection('fs.files').find({ filename: 'b1.book' }).toArray()).map((f) => String(f._id));
    expect(kept).toHaveLength(2);
    expect(kept).toContain(String(newer._id));
    expect(await text(await blobs.read('b1.book'))).toBe('newer');
    expect(await db.collection('fs.chunks').countDocuments({})).toBe(2);
  });

  it('deletes a file by its document, then its chunks, running the chunk delete again after a failover (not a retryable write)', async () => {
    const db = await freshDb();
    await new GridFsBlobStore(db).putBytes('b2.book', Buffer.from('to be deleted'));
    const failingOnce = new GridFsBlobStore(interceptFirstCall(db, 'fs.chunks', 'deleteMany', steppedDown));
    await failingOnce.delete('b2.book');
    expect(await db.collection('fs.files').countDocuments({})).toBe(0);
    expect(await db.collection('fs.chunks').countDocuments({})).toBe(0);
    expect(await failingOnce.read('b2.book')).toBeNull();
  });

  it('deletes a key that holds no file without an error (nothing is recognised by message text)', async () => {
    const db = await freshDb();
    await expect(new GridFsBlobStore(db).delete('never-stored.book')).resolves.toBeUndefined();
  });
});
