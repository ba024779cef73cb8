import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ObjectId } from 'mongodb';
import type { BlobStore, StagedFile } from '../../src/application/ports.js';
import { FsBlobStore } from '../../src/adapters/files/fs-blob-store.js';
import { FsUploadStaging } from '../../src/adapters/files/fs-upload-staging.js';
import { MongoDatabase } from '../../src/adapters/mongo/mongo-database.js';
import { GridFsBlobStore } from '../../src/adapters/mongo/grid-fs-blob-store.js';
import type { StandInLimit } from '../support/mongo-server.js';
import { MONGO_SERVER_NAMES, mongoLimits, mongoServerKind, mongoTestServer } from '../support/mongo-server.js';

/** A time after every blob a test writes: `keys` then lists them all (the stores stamp writes with the real clock). */
const aMinuteFromNow = () => new Date(Date.now() + 60_000);

interface OpenBlobStore {
  readonly blobs: BlobStore;
  readonly staging: FsUploadStaging;
  readonly gridFs?: { store: GridFsBlobStore; database: MongoDatabase };
  dispose(): Promise<void>;
}

interface BlobStoreFactory {
  readonly name: string;
  readonly limits: Partial<Record<StandInLimit, string>>;
  open(dir: string): Promise<OpenBlobStore>;
}

let databases = 0;
const kind = mongoServerKind();
const FACTORIES: readonly BlobStoreFactory[] = [
  { name: 'FsBlobStore', limits: {}, open: async (dir) => ({ blobs: new FsBlobStore(dir), staging: new FsUploadStaging(dir), dispose: async () => {} }) },
  {
    name: `GridFsBlobStore (${MONGO_SERVER_NAMES[kind]})`,
    limits: mongoLimits(kind),
    async open(dir) {
      const server = await mongoTestServer();
      const database = await MongoDatabase.connect(server.database(`stacks_blobs_${process.pid}_${++databases}`));
      const store = new GridFsBlobStore(database.db);
      return { blobs: store, staging: new FsUploadStaging(dir), gridFs: { store, database }, dispose: async () => {
        await database.db.dropDatabase().catch(() => undefined);
        await database.close();
      } };
    },
  },
];

/** Deterministic bytes (a fixed linear congruential sequence), so every run checks the same content. */
function bytes(length: number, seed = 7): Buffer {
  const out = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

async function readAll(source: AsyncIterable<Uint8Array> | null): Promise<Buffer | null> {
  if (!source) return null;
  const parts: Buffer[] = [];
  for await (const part of source) parts.push(Buffer.from(part));
  return Buffer.concat(parts);
}

async function collect(keys: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const key of keys) out.push(key);
  return out.sort();
}

describe.each(FACTORIES)('BlobStore contract ($name)', (factory) => {
  let dir = '';
  let open: OpenBlobStore;
  const itWhere = (need: StandInLimit) => (factory.limits[need] ? it.skip : it);
  const note = (need: StandInLimit) => (factory.limits[need] ? ` [skipped on ${factory.name}: ${factory.limits[need]}]` : '');
  const stage = (data: Buffer): Promise<StagedFile> => open.staging.stage((async function* () { yield data; })(), 100 * 1024 * 1024);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-blobs-'));
    open = await factory.open(dir);
  });
  afterEach(async () => {
    await open.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a staged file under its key, consuming the staged copy', async () => {
    const data = bytes(300_000);
    const staged = await stage(data);
    await open.blobs.putStaged('b1.book', staged);
    expect(await readAll(await open.blobs.read('b1.book'))).toEqual(data);
    expect(await open.blobs.size('b1.book')).toBe(300_000);
    expect(existsSync(staged.handle)).toBe(false);
  });

  it('reads inclusive byte ranges, across chunk boundaries too', async () => {
    const data = bytes(600_000, 3);
    await open.blobs.putBytes('b2.book', data);
    expect(await readAll(await open.blobs.read('b2.book', { start: 0, end: 0 }))).toEqual(data.subarray(0, 1));
    expect(await readAll(await open.blobs.read('b2.book', { start: 261_000, end: 262_000 }))).toEqual(data.subarray(261_000, 262_001));
    expect(await readAll(await open.blobs.read('b2.book', { start: 599_990, end: 599_999 }))).toEqual(data.subarray(599_990));
    await expect(open.blobs.read('b2.book', { start: 5, end: 2 })).rejects.toBeInstanceOf(RangeError);
  });

  it('reads several small spans in one call, cut short at the end and empty past it', async () => {
    const data = bytes(300_000, 5);
    await open.blobs.putBytes('b8.book', data);
    const spans = await open.blobs.readSpans('b8.book', [{ start: 0, end: 2047 }, { start: 261_000, end: 262_023 }, { start: 299_990, end: 301_013 }, { start: 400_000, end: 401_023 }]);
    expect(spans?.map((span) => Buffer.from(span))).toEqual([data.subarray(0, 2048), data.subarray(261_000, 262_024), data.subarray(299_990), Buffer.alloc(0)]);
    expect(await open.blobs.readSpans('b8.book', [])).toEqual([]);
    expect(await open.blobs.readSpans('nothing.book', [{ start: 0, end: 10 }])).toBeNull();
    await expect(open.blobs.readSpans('b8.book', [{ start: 5, end: 2 }])).rejects.toBeInstanceOf(RangeError);
    await expect(open.blobs.readSpans('b8.book', [{ start: 0, end: 1024 * 1024 }])).rejects.toBeInstanceOf(RangeError);
  });

  it('replaces the blob under an existing key and lists each key once', async () => {
    await open.blobs.putBytes('b3.cover', bytes(10, 1));
    await open.blobs.putBytes('b3.cover', bytes(20, 2));
    await open.blobs.putStaged('b4.book', await stage(bytes(5, 4)));
    expect(await readAll(await open.blobs.read('b3.cover'))).toEqual(bytes(20, 2));
    expect(await collect(open.blobs.keys(aMinuteFromNow()))).toEqual(['b3.cover', 'b4.book']);
  });

  it('lists only the keys of blobs written before the time given', async () => {
    await open.blobs.putBytes('b6.book', bytes(10));
    await open.blobs.putStaged('b7.book', await stage(bytes(5, 4)));
    expect(await collect(open.blobs.keys(new Date(Date.now() - 60_000)))).toEqual([]);
    expect(await collect(open.blobs.keys(aMinuteFromNow()))).toEqual(['b6.book', 'b7.book']);
  });

  it('answers null for absent keys and deletes idempotently', async () => {
    expect(await open.blobs.read('nothing.book')).toBeNull();
    expect(await open.blobs.size('nothing.book')).toBeNull();
    await open.blobs.delete('nothing.book');
    await open.blobs.putBytes('b5.book', bytes(100));
    await open.blobs.delete('b5.book');
    expect(await open.blobs.read('b5.book')).toBeNull();
    expect(await collect(open.blobs.keys(aMinuteFromNow()))).toEqual([]);
  });

  it('refuses keys that are not plain server-made names', async () => {
    for (const key of ['../x', '.hidden', 'a/b', '', 'x'.repeat(129)]) {
      await expect(open.blobs.putBytes(key, bytes(1))).rejects.toBeInstanceOf(RangeError);
      await expect(open.blobs.read(key)).rejects.toBeInstanceOf(RangeError);
    }
  });

  itWhere('largeGridFsReads')(`streams a 20 MB file back whole${note('largeGridFsReads')}`, async () => {
    const data = bytes(20 * 1024 * 1024, 9);
    await open.blobs.putStaged('big.book', await stage(data));
    expect(await open.blobs.size('big.book')).toBe(data.length);
    expect((await readAll(await open.blobs.read('big.book')))?.equals(data)).toBe(true);
  });

  const gridFsOnly = factory.name.startsWith('GridFs') ? it : () => undefined;
  gridFsOnly('removes chunks left without a file document, and only those', async () => {
    const { store, database } = open.gridFs as NonNullable<OpenBlobStore['gridFs']>;
    await store.putBytes('kept.book', bytes(300_000));
    const chunks = database.db.collection('fs.chunks');
    const stale = ObjectId.createFromTime(Math.floor(Date.now() / 1000) - 7200);
    const fresh = new ObjectId();
    await chunks.insertMany([0, 1].map((n) => ({ files_id: stale, n, data: bytes(16, n) })));
    await chunks.insertOne({ files_id: fresh, n: 0, data: bytes(16) });
    expect(await store.removeOrphanChunks()).toBe(2);
    expect(await chunks.countDocuments({ files_id: stale })).toBe(0);
    expect(await chunks.countDocuments({ files_id: fresh })).toBe(1);
    expect(await store.removeOrphanChunks(0)).toBe(1);
    expect(await readAll(await store.read('kept.book'))).toEqual(bytes(300_000));
  });
});
