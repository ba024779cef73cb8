import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMongoStore } from '../../../src/adapters/mongo/mongo-store.js';
import type { ThrottlePolicy } from '../../../src/domain/login-throttle.js';
import { instant } from '../../support/builders.js';
import { mongoTestServer, MONGO_SERVER_NAMES, mongoServerKind } from '../../support/mongo-server.js';

const policy: ThrottlePolicy = { maxFailures: 3, windowMs: 60_000, blockMs: 10_000, maxBlockMs: 40_000 };
let store: Awaited<ReturnType<typeof createMongoStore>>;

beforeAll(async () => {
  const server = await mongoTestServer();
  store = await createMongoStore(server.database(`stacks_throttle_${process.pid}`));
}, 60_000);
afterAll(async () => {
  await store.database.db.dropDatabase().catch(() => undefined);
  await store.close();
});

describe(`MongoLoginThrottleRepository (${MONGO_SERVER_NAMES[mongoServerKind()]})`, () => {
  it('answers throttle_busy (503), not a driver error, when every compare-and-set round is lost', async () => {
    // A counter at the attempt that starts a block, without the write stamp: each round's write
    // expects no document, finds one and loses, as against a writer that always wins.
    await store.database.db.collection('throttles').insertOne({ _id: 'busy' as never, failures: 2, windowStartedAt: instant(0), blockedUntil: null, blocks: 0 });
    await expect(store.throttle.reserve('busy', instant(1), policy)).rejects.toMatchObject({ kind: 'unavailable', code: 'throttle_busy' });
    expect(await store.throttle.get('busy')).toMatchObject({ failures: 2, blockedUntil: null });
  }, 20_000);
});
