import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { MongoClient, ObjectId } from 'mongodb';
import type { CommandStartedEvent, Db } from 'mongodb';
import { GridFsBlobStore } from '../../../src/adapters/mongo/grid-fs-blob-store.js';
import { instant } from '../../support/builders.js';
import { mongoTestServer, MONGO_SERVER_NAMES, mongoServerKind } from '../../support/mongo-server.js';

let client: MongoClient;
let databases = 0;
const commands: CommandStartedEvent[] = [];

beforeAll(async () => {
  const server = await mongoTestServer();
  client = new MongoClient(server.database('unused'), { monitorCommands: true });
  client.on('commandStarted', (event) => commands.push(event));
  await client.connect();
}, 60_000);
afterAll(async () => client?.close());

async function freshDb(): Promise<Db> {
  const db = client.db(`stacks_gridfs_housekeeping_${process.pid}_${++databases}`);
  await db.dropDatabase();
  commands.length = 0;
  return db;
}

const fileDoc = (filename: string, uploadDate: Date) => ({ _id: new ObjectId(), filename, uploadDate, length: 0, chunkSize: 261_120 });
const oldId = (seconds: number) => ObjectId.createFromTime(seconds);

describe(`GridFS housekeeping in bounded batches (${MONGO_SERVER_NAMES[mongoServerKind()]})`, () => {
  it('lists keys through a cursor in filename order, never distinct (one reply past 16 MB at ~310,000 files), keeping the age rule', async () => {
    const db = await freshDb();
    const docs = Array.from({ length: 2_500 }, (_, i) => fileDoc(`b${String(i).padStart(5, '0')}.book`, instant(1_000)));
    docs.push(fileDoc('b00001.book', instant(9_000)), fileDoc('young.cover', instant(9_000)), fileDoc('not a key!', instant(1_000)));
    await db.collection('fs.files').insertMany(docs);
    const keys: string[] = [];
    for await (const key of new GridFsBlobStore(db).keys(instant(5_000))) keys.push(key);
    expect(keys).toHaveLength(2_499);
    expect(keys.slice(0, 2)).toEqual(['b00000.book', 'b00002.book']);
    expect(keys).toEqual([...keys].sort());
    const names = commands.map((c) => c.commandName);
    expect(names).not.toContain('distinct');
    expect(names).toContain('getMore');
  });

  it('sweeps orphan chunks by index ranges: no $in over 1,000 ids, files with a document and young chunks kept', async () => {
    const db = await freshDb();
    const ids = Array.from({ length: 2_400 }, (_, i) => oldId(1_000 + i));
    await db.collection('fs.chunks').insertMany(ids.flatMap((id) => [0, 1].map((n) => ({ files_id: id, n, data: Buffer.alloc(1) }))));
    await db.collection('fs.files').insertMany(ids.filter((_, i) => i % 3 === 0).map((id) => ({ ...fileDoc('x.book', instant(0)), _id: id })));
    const young = oldId(1_000_000);
    await db.collection('fs.chunks').insertOne({ files_id: young, n: 0, data: Buffer.alloc(1) });
    commands.length = 0;
    const removed = await new GridFsBlobStore(db).removeOrphanChunks(60_000, new Date(1_000_000 * 1000));
    expect(removed).toBe(1_600 * 2);
    expect(await db.collection('fs.chunks').countDocuments({})).toBe(800 * 2 + 1);
    const inSizes = commands.flatMap((c) => JSON.stringify(c.command).match(/"\$in":\[[^\]]*\]/g) ?? []).map((s) => s.split(',').length);
    expect(Math.max(...inSizes)).toBeLessThanOrEqual(1_000);
  }, 30_000);

  it('aborts a failed upload, removing the chunks it already wrote', async () => {
    const db = await freshDb();
    const store = new GridFsBlobStore(db);
    const failing = Readable.from((async function* () {
      for (let i = 0; i < 4; i++) yield Buffer.alloc(300_000, i);
      throw new Error('client went away');
    })());
    await expect(store['upload']('cut.book', failing)).rejects.toThrow('client went away');
    expect(await db.collection('fs.files').countDocuments({})).toBe(0);
    expect(await db.collection('fs.chunks').countDocuments({})).toBe(0);
  });
});
