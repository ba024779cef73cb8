// Runs CongoDB (from @push.rocks/smartmongo 2.2.0) as a separate process on a free loopback port and
// prints {"port": N} once it listens. CongoDB keeps every `_id` as an ObjectId; Stacks stores its own
// string ids as `_id`, so this process (and only this one) teaches its in-memory storage to keep a
// string `_id` as given (a second insert of one fails as the server does: code 11000, keyPattern
// {_id: 1}). It also answers its handshake as the primary of a one-member replica set (`rs0`), as
// Stacks refuses a standalone; with STANDALONE=1 it answers as a standalone, to test that
// refusal. Nothing else about the server is changed: it still neither isolates nor rolls back a transaction.
import { CongoDuplicateKeyError, CongoServer, MemoryStorageAdapter } from '@push.rocks/smartmongo/dist_ts/congodb/index.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import { HelloHandler } from '@push.rocks/smartmongo/dist_ts/congodb/server/handlers/HelloHandler.js';
import { InsertHandler } from '@push.rocks/smartmongo/dist_ts/congodb/server/handlers/InsertHandler.js';
import { UpdateHandler } from '@push.rocks/smartmongo/dist_ts/congodb/server/handlers/UpdateHandler.js';

Object.defineProperty(String.prototype, 'toHexString', { value: function toHexString() { return String(this); } });
const insertOne = MemoryStorageAdapter.prototype.insertOne;
MemoryStorageAdapter.prototype.insertOne = async function insertStringId(db, collection, doc) {
  if (typeof doc._id !== 'string') return insertOne.call(this, db, collection, doc);
  const documents = this.ensureCollection(db, collection);
  if (documents.has(doc._id)) throw new CongoDuplicateKeyError(`E11000 duplicate key error: _id ${doc._id}`, { _id: 1 }, { _id: doc._id });
  const stored = { ...doc };
  documents.set(doc._id, stored);
  return stored;
};

// CongoDB's insert, update and findAndModify replies drop the `keyPattern`/`keyValue` of a duplicate
// key, which MongoDB always reports (and Stacks decides by): put them back, request by request.
const duplicates = new AsyncLocalStorage();
const storeInsertOne = MemoryStorageAdapter.prototype.insertOne;
MemoryStorageAdapter.prototype.insertOne = async function insertRecordingDuplicates(...args) {
  try {
    return await storeInsertOne.apply(this, args);
  } catch (error) {
    if (error instanceof CongoDuplicateKeyError) duplicates.getStore()?.push(error);
    throw error;
  }
};
const withKeyPatterns = (handle) => async function handleReportingKeyPatterns(context) {
  const seen = [];
  return duplicates.run(seen, async () => {
    let reply;
    try {
      reply = await handle.call(this, context);
    } catch (error) {
      if (!(error instanceof CongoDuplicateKeyError)) throw error;
      return { ok: 0, errmsg: error.message, code: 11000, codeName: 'DuplicateKey', keyPattern: error.keyPattern, keyValue: error.keyValue };
    }
    const lost = (reply.writeErrors ?? []).filter((e) => e.code === 11000 && e.keyPattern === undefined);
    lost.forEach((e, i) => Object.assign(e, seen[i] ? { keyPattern: seen[i].keyPattern, keyValue: seen[i].keyValue } : {}));
    return reply;
  });
};
InsertHandler.prototype.handle = withKeyPatterns(InsertHandler.prototype.handle);
UpdateHandler.prototype.handle = withKeyPatterns(UpdateHandler.prototype.handle);

if (process.env.STANDALONE !== '1') {
  const hello = HelloHandler.prototype.handle;
  HelloHandler.prototype.handle = async function helloAsReplicaSetPrimary(context) {
    const reply = await hello.call(this, context);
    const me = `127.0.0.1:${context.server['server'].address().port}`;
    return { ...reply, setName: 'rs0', setVersion: 1, hosts: [me], primary: me, me, secondary: false, isWritablePrimary: true };
  };
}

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
