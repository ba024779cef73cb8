import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient, MongoServerError } from 'mongodb';
import { inTransaction } from '../../../src/adapters/mongo/mongo-transactions.js';
import { mongoTestServer } from '../../support/mongo-server.js';

/** What a primary that stepped down answers inside a transaction; the label makes the whole transaction retryable. */
const steppedDown = (labels: string[]) =>
  new MongoServerError({ code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary', errorLabels: labels });

describe('Mongo transactions retry what the server marks transient (synthesised server errors)', () => {
  let client: MongoClient;
  beforeAll(async () => {
    client = new MongoClient((await mongoTestServer()).database(`stacks_transactions_${process.pid}`));
    await client.connect();
  });
  afterAll(async () => {
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

  it('gives up at once on an error without the label, with that error', async () => {
    let attempts = 0;
    const error = steppedDown([]);
    await expect(inTransaction(client.db(), async () => {
      attempts += 1;
      throw error;
    })).rejects.toBe(error);
    expect(attempts).toBe(1);
  });
});
