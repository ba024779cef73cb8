// Runs CongoDB (from @push.rocks/smartmongo 2.2.0) as a separate process on a free loopback port and
// prints {"port": N} once it listens. CongoDB keeps every `_id` as an ObjectId; Stacks stores its own
// string ids as `_id`, so this process (and only this one) teaches its in-memory storage to keep a
// string `_id` as given. Nothing else about the server is changed.
import { CongoServer, MemoryStorageAdapter } from '@push.rocks/smartmongo/dist_ts/congodb/index.js';

Object.defineProperty(String.prototype, 'toHexString', { value: function toHexString() { return String(this); } });
const insertOne = MemoryStorageAdapter.prototype.insertOne;
MemoryStorageAdapter.prototype.insertOne = async function insertStringId(db, collection, doc) {
  if (typeof doc._id !== 'string') return insertOne.call(this, db, collection, doc);
  const documents = this.ensureCollection(db, collection);
  if (documents.has(doc._id)) throw new Error(`Duplicate key error: _id ${doc._id}`);
  const stored = { ...doc };
  documents.set(doc._id, stored);
  return stored;
};

const server = new CongoServer({ host: '127.0.0.1', port: Number(process.env.CONGODB_PORT ?? 0) });
await server.start();
process.stdout.write(`${JSON.stringify({ port: server['server'].address().port })}\n`);
const stop = async () => {
  await server.stop().catch(() => {});
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
