import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import request from 'supertest';
import { createMongoStore, type MongoStore } from '../../../src/adapters/mongo/mongo-store.js';
import { MongoLease } from '../../../src/adapters/mongo/mongo-lease.js';
import { rateLimits } from '../../../src/adapters/http/rate-limit.js';
import { RunHousekeeping } from '../../../src/application/use-cases/run-housekeeping.js';
import { pino } from 'pino';
import { instant } from '../../support/builders.js';
import { mongoTestServer, MONGO_SERVER_NAMES, mongoServerKind, startCongoDb } from '../../support/mongo-server.js';

let a: MongoStore;
let b: MongoStore;

beforeAll(async () => {
  const server = await mongoTestServer();
  const url = server.database(`stacks_shared_state_${process.pid}`);
  [a, b] = [await createMongoStore(url), await createMongoStore(url)];
}, 60_000);
afterAll(async () => {
  await a?.database.db.dropDatabase().catch(() => undefined);
  await Promise.all([a?.close(), b?.close()]);
});

/** One Stacks instance's request budget (3 a minute unless said), counted through its own client on the shared store. */
function instance(store: MongoStore, now: () => Date, perMinute = 3) {
  const app = express();
  app.set('trust proxy', false);
  // A latency budget no test run reaches: what is served depends on the counting, not on the machine's speed.
  app.use(rateLimits({ perMinute, registrationsPerHour: 0, shared: store.rateCounter, sharedLatencyBudgetMs: 600_000 }, (error) => (_req, res) => {
    res.status(429).set('Retry-After', String(error.retryAfterSeconds)).end();
  }, now));
  app.get('/api/x', (_req, res) => res.end('ok'));
  return app;
}

describe(`state every instance shares (${MONGO_SERVER_NAMES[mongoServerKind()]})`, () => {
  it('holds a request budget across two instances: 3 a minute in all, not 3 on each; a new minute starts afresh', async () => {
    let now = instant(60_005);
    const [onA, onB] = [instance(a, () => now), instance(b, () => now)];
    const statuses: number[] = [];
    for (const app of [onA, onB, onA, onB, onA]) statuses.push((await request(app).get('/api/x')).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(Number((await request(onB).get('/api/x')).headers['retry-after'])).toBe(55);
    now = instant(60_060);
    expect((await request(onB).get('/api/x')).status).toBe(200);
    const counters = await a.database.db.collection('rate_counters').find({}).toArray();
    expect(counters.map((c) => c.expiresAt as Date).sort((x, y) => x.getTime() - y.getTime())).toEqual([instant(60_060), instant(60_120)]);
  });

  it('RACE: 150 requests at once from one address, 75 at each of two instances, with a budget of 100 a minute: at most 100 served', async () => {
    const now = () => instant(120_030);
    const [onA, onB] = [instance(a, now, 100), instance(b, now, 100)];
    const counted = await a.database.db.collection('rate_counters').countDocuments({});
    const statuses = await Promise.all(Array.from({ length: 150 }, (_, i) => request(i % 2 === 0 ? onA : onB).get('/api/x').then((r) => r.status)));
    const served = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(served).toBeLessThanOrEqual(100);
    // Refused early at most the units each instance reserved ahead of its requests and left unspent (documented tolerance).
    expect(served).toBeGreaterThanOrEqual(100 - 2 * Math.ceil(100 / 20));
    const [counter] = await a.database.db.collection('rate_counters').find({}).skip(counted).toArray();
    expect(counter?.count).toBeGreaterThanOrEqual(served);
  });

  it('lets one instance at a time hold the housekeeping lease; an expired lease passes on, its old holder cannot renew it', async () => {
    const first = new MongoLease(a.database.db, 'sweep-test', 'instance-a', 60_000);
    const second = new MongoLease(b.database.db, 'sweep-test', 'instance-b', 60_000);
    expect(await first.acquire(instant(0))).toBe(true);
    expect(await second.acquire(instant(30))).toBe(false);
    expect(await first.renew(instant(50))).toBe(true);
    expect(await second.acquire(instant(100))).toBe(false);
    expect(await second.acquire(instant(111))).toBe(true);
    expect(await first.renew(instant(112))).toBe(false);
    await second.release();
    expect(await first.acquire(instant(113))).toBe(true);
  });

  it('runs each housekeeping step on one instance at a time: skipped while another holds its lease, other steps free, released at the end', async () => {
    const quiet = pino({ level: 'silent' });
    const clock = { now: () => new Date() };
    const ran: string[] = [];
    let finish = (): void => undefined;
    const slow = { name: 'sweep', run: () => new Promise<object>((resolve) => { ran.push('a:sweep'); finish = () => resolve({}); }) };
    const onB = (name: string) => ({ name, run: async () => (ran.push(`b:${name}`), {}) });
    const running = new RunHousekeeping(a.housekeepingLeases, clock, quiet, [slow]).execute();
    await expect.poll(() => ran).toEqual(['a:sweep']);
    expect(await new RunHousekeeping(b.housekeepingLeases, clock, quiet, [onB('sweep'), onB('purge')]).execute())
      .toEqual({ ran: ['purge'], heldElsewhere: ['sweep'], failed: [] });
    finish();
    expect(await running).toEqual({ ran: ['sweep'], heldElsewhere: [], failed: [] });
    expect(await new RunHousekeeping(b.housekeepingLeases, clock, quiet, [onB('sweep')]).execute()).toEqual({ ran: ['sweep'], heldElsewhere: [], failed: [] });
    expect(ran).toEqual(['a:sweep', 'b:purge', 'b:sweep']);
    expect(await a.database.db.collection('leases').countDocuments({ _id: { $in: ['housekeeping:sweep', 'housekeeping:purge'] as never[] } })).toBe(0);
  });

  it('creates every index and a schema-version record at the first start on a new database', async () => {
    const names = async (collection: string) => (await a.database.db.collection(collection).listIndexes().toArray()).map((i) => i.name as string);
    expect(await names('fs.files')).toContain('filename_1_uploadDate_1');
    expect(await names('fs.chunks')).toContain('files_id_1_n_1');
    expect(await names('throttles')).toContain('throttles_ttl');
    expect(await names('rate_counters')).toContain('rate_counters_ttl');
    expect(await names('kobo_devices')).toContain('kobo_devices_lookup');
    expect(await names('change_feed')).toContain('change_feed_group');
    expect(await a.database.db.collection('stacks_meta').findOne({ _id: 'schema' as never })).toMatchObject({ version: 4 });
  });

  it.runIf(mongoServerKind() === 'congodb')('refuses at start a standalone server, saying MongoDB must be a replica set', async () => {
    const standalone = await startCongoDb({ standalone: true });
    try {
      await expect(createMongoStore(standalone.database('stacks_standalone'))).rejects.toThrow(/MongoDB must be a replica set/);
    } finally {
      await standalone.stop();
    }
  }, 30_000);
});
