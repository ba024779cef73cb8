import { describe, expect, it } from 'vitest';
import { MongoDatabase, WAIT_QUEUE_TIMEOUT_MS } from '../../../src/adapters/mongo/mongo-database.js';
import { mongoTestServer, MONGO_SERVER_NAMES, mongoServerKind } from '../../support/mongo-server.js';

describe(`pool waits are bounded (${MONGO_SERVER_NAMES[mongoServerKind()]})`, () => {
  it(`waits at most ${WAIT_QUEUE_TIMEOUT_MS} ms for a pooled connection unless DATABASE_URL says otherwise (waitQueueTimeoutMS)`, async () => {
    // Without the test harness's own pool wait (the stand-in's URL carries a long one).
    const base = (await mongoTestServer()).database(`stacks_pool_waits_${process.pid}`).replace(/[?&]waitQueueTimeoutMS=\d+/, '');
    const plain = await MongoDatabase.connect(base);
    const told = await MongoDatabase.connect(`${base}${base.includes('?') ? '&' : '?'}waitQueueTimeoutMS=750&maxPoolSize=20`);
    try {
      expect(plain.client.options.waitQueueTimeoutMS).toBe(WAIT_QUEUE_TIMEOUT_MS);
      expect(told.client.options.waitQueueTimeoutMS).toBe(750);
      expect(told.client.options.maxPoolSize).toBe(20);
      expect((await plain.maintenance()).client.options.socketTimeoutMS).toBe(0);
      expect(plain.client.options.socketTimeoutMS).toBe(30_000);
    } finally {
      await Promise.all([plain.close(), told.close()]);
    }
  });
});
