import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient, MongoServerError, type ClientSession } from 'mongodb';
import { storeErrorOf } from '../../../src/adapters/mongo/mongo-errors.js';
import { inTransaction, TRANSACTION_FAILOVER_ATTEMPTS } from '../../../src/adapters/mongo/mongo-transactions.js';
import { FAILOVER_ERRORS, injectFaults, type FaultInjector } from '../../support/mongo-faults.js';
import { mongoTestServer } from '../../support/mongo-server.js';

/** What a primary that stepped down answers inside a transaction; the label makes the whole transaction retryable. */
const steppedDown = (labels: string[]) =>
  new MongoServerError({ code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary', errorLabels: labels });

describe('Mongo transactions retry what the server marks transient (synthesised server errors)', () => {
  let client: MongoClient;
  let faults: FaultInjector;
  beforeAll(async () => {
    client = new MongoClient((await mongoTestServer()).database(`stacks_transactions_${process.pid}`));
    await client.connect();
    faults = injectFaults();
  });
  afterEach(() => faults.heal());
  afterAll(async () => {
    faults?.restore();
    await client.db().dropDatabase().catch(() => undefined);
    await client.close();
  });

  it('runs the work again after a TransientTransactionError (a step-down or a write conflict) and returns its result', async () => {
    let attempts = 0;
    const result = await inTransaction(client.db(), async (session) => {
      attempts += 1;
      await client.db().collection('probe').updateOne({ _id: 'p' as never }, { $inc: { n: 1 } }, { session, upsert: true });
      if (attempts === 1) throw steppedDown(['TransientTransactionError']);
      return 'committed';
    });
    expect(result).toBe('committed');
    expect(attempts).toBe(2);
  });

  it.each([
    ['WriteConflict', 112], ['LockTimeout', 24], ['LockBusy', 46],
  ])(`runs the work again past ${TRANSACTION_FAILOVER_ATTEMPTS} attempts while concurrent writers contend (%s)`, async (codeName, code) => {
    let attempts = 0;
    const result = await inTransaction(client.db(), async () => {
      attempts += 1;
      if (attempts <= TRANSACTION_FAILOVER_ATTEMPTS + 2) throw new MongoServerError({ code, codeName, errmsg: codeName, errorLabels: ['TransientTransactionError'] });
      return 'committed';
    });
    expect({ result, attempts }).toEqual({ result: 'committed', attempts: TRANSACTION_FAILOVER_ATTEMPTS + 3 });
  });

  it(`answers store_unavailable after ${TRANSACTION_FAILOVER_ATTEMPTS} attempts that met a step-down in the work`, async () => {
    let attempts = 0;
    const error: unknown = await inTransaction(client.db(), async () => {
      attempts += 1;
      throw steppedDown(['TransientTransactionError']);
    }).catch((e: unknown) => e);
    expect({ error, attempts }).toMatchObject({ error: { kind: 'unavailable', code: 'store_unavailable' }, attempts: TRANSACTION_FAILOVER_ATTEMPTS });
  });

  it('gives up at once on an error without the label, with that error', async () => {
    let attempts = 0;
    const error = steppedDown([]);
    await expect(inTransaction(client.db(), async () => {
      attempts += 1;
      throw error;
    })).rejects.toBe(error);
    expect(attempts).toBe(1);
  });

  /**
   * A commit the primary's step-down interrupts: the driver labels it UnknownTransactionCommitResult, and its
   * own withTransaction then commits again, without a pause, for 120 seconds. Against a failure that comes at
   * once that held the event loop for the whole 120 s (the step-down drill's run that timed out, stop 29).
   */
  const counter = async () => (await client.db().collection<{ _id: string; n: number }>('probe').findOne({ _id: 'commit' }))?.n ?? 0;
  /** Work that adds one to the counter, then calls onWorkDone (which injects the commit's fault). */
  const bump = (onWorkDone: () => void) => async (session: ClientSession) => {
    await client.db().collection<{ _id: string; n: number }>('probe').updateOne({ _id: 'commit' }, { $inc: { n: 1 } }, { session, upsert: true });
    onWorkDone();
    return 'committed';
  };

  describe.each(['NotWritablePrimary (10107)', 'InterruptedDueToReplStateChange (11602)'])('a commit that fails as in a step-down (%s)', (name) => {
    const commitFails = (times?: number) => faults.fail({ error: FAILOVER_ERRORS[name]!, commands: ['commitTransaction'], ...(times === undefined ? {} : { times }) });

    it(`is committed again, without running the work again, while it fails fewer than ${TRANSACTION_FAILOVER_ATTEMPTS} times`, async () => {
      const before = await counter();
      let works = 0;
      const result = await inTransaction(client.db(), bump(() => {
        works += 1;
        commitFails(TRANSACTION_FAILOVER_ATTEMPTS - 1);
      }));
      expect({ result, works, added: (await counter()) - before }).toEqual({ result: 'committed', works: 1, added: 1 });
    });

    it(`answers store_unavailable once it failed ${TRANSACTION_FAILOVER_ATTEMPTS} times, the fault still on`, async () => {
      let works = 0;
      const error: unknown = await inTransaction(client.db(), bump(() => {
        works += 1;
        commitFails();
      })).catch((e: unknown) => e);
      expect({ error, works }).toMatchObject({ error: { kind: 'unavailable', code: 'store_unavailable' }, works: 1 });
    });
  });

  it('fails a commit that finds no primary to select at once, as a store outage (503), the work run once', async () => {
    let works = 0;
    const error: unknown = await inTransaction(client.db(), bump(() => {
      works += 1;
      faults.fail({ error: FAILOVER_ERRORS['server selection timed out (no primary)']!, at: 'selection' });
    })).catch((e: unknown) => e);
    expect({ error: storeErrorOf(error), works }).toMatchObject({ error: { kind: 'unavailable', code: 'store_unavailable' }, works: 1 });
  });
});
