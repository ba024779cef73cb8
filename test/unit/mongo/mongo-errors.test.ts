import { describe, expect, it } from 'vitest';
import { MongoError, MongoServerError } from 'mongodb';
import { isStoreOutage, mappingStoreErrors, OUTAGE_CODES, OUTAGE_LABELS, storeErrorOf } from '../../../src/adapters/mongo/mongo-errors.js';
import { bookNotFound } from '../../../src/domain/error-catalogue.js';
import { FAILOVER_ERRORS } from '../../support/mongo-faults.js';

const withCode = (code: number) => new MongoServerError({ ok: 0, code, codeName: OUTAGE_CODES[code], errmsg: 'synthesised' });

describe('Mongo failures told apart by class, code and label (synthesised driver errors)', () => {
  it.each(Object.entries(FAILOVER_ERRORS))('maps %s to store_unavailable, keeping the driver error as its cause', (_, error) => {
    const original = error();
    expect(storeErrorOf(original)).toMatchObject({ code: 'store_unavailable', kind: 'unavailable', retryAfterSeconds: 5, cause: original });
  });

  it.each(Object.keys(OUTAGE_CODES).map(Number))('counts server code %i as an outage', (code) => {
    expect(isStoreOutage(withCode(code))).toBe(true);
  });

  it.each(OUTAGE_LABELS)('counts the %s label as an outage, whatever the code', (label) => {
    expect(isStoreOutage(new MongoServerError({ ok: 0, code: 2, errmsg: 'x', errorLabels: [label] }))).toBe(true);
  });

  it('passes every other error through unchanged: a duplicate key, a bad value, a domain error, and a failover only its message names', () => {
    const duplicate = new MongoServerError({ ok: 0, code: 11000, codeName: 'DuplicateKey', errmsg: 'E11000', keyPattern: { sha256: 1 } });
    const legacyText = new MongoError('not master and slaveOk=false: node is recovering');
    const domain = bookNotFound('b1');
    for (const error of [duplicate, withCode(2), legacyText, domain, new Error('NotWritablePrimary')]) expect(storeErrorOf(error)).toBe(error);
  });

  it('maps what every method of a wrapped adapter rejects or throws, and what its listings throw while iterated', async () => {
    const outage = FAILOVER_ERRORS['NotWritablePrimary (10107)']!;
    const adapter = mappingStoreErrors({
      plain: () => 7,
      rejects: async () => { throw outage(); },
      throws: () => { throw outage(); },
      async *listing() { yield 'a'; throw outage(); },
      other: async () => { throw bookNotFound('b1'); },
    });
    expect(adapter.plain()).toBe(7);
    await expect(adapter.rejects()).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(() => adapter.throws()).toThrow(expect.objectContaining({ code: 'store_unavailable' }));
    const seen: string[] = [];
    await expect((async () => { for await (const key of adapter.listing()) seen.push(key); })()).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(seen).toEqual(['a']);
    await expect(adapter.other()).rejects.toMatchObject({ code: 'book_not_found' });
  });
});
