import { describe, expect, it } from 'vitest';
import type { SyncDocument } from '../../src/domain/kosync.js';
import { aUser, instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, useStore } from './stores.js';

const DOC = '0123456789abcdef0123456789abcdef';
const OTHER_DOC = 'fedcba9876543210fedcba9876543210';

const aRecord = (userId: string, overrides: Partial<SyncDocument> = {}): SyncDocument => ({
  userId, document: DOC, progress: '/body/DocFragment[3]/body/p[7]/text().12', percentage: 0.3125,
  device: 'Kobo Libra 2', deviceId: 'A1B2C3D4E5F6', updatedAt: instant(1), ...overrides,
});

function syncDocumentRepositoryContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const documents = () => store().syncDocuments;

  async function seedUsers(...ids: string[]): Promise<void> {
    for (const id of ids) await store().users.create(aUser({ id, username: id, email: `${id}@example.test` }));
  }

  it('gives back exactly what was put, and null for a document never pushed', async () => {
    await seedUsers('u1');
    await documents().put(aRecord('u1'));
    expect(await documents().get('u1', DOC)).toEqual(aRecord('u1'));
    expect(await documents().get('u1', OTHER_DOC)).toBeNull();
  });

  it('replaces the (user, document) record on a second put', async () => {
    await seedUsers('u1');
    await documents().put(aRecord('u1'));
    const newer = aRecord('u1', { progress: '42', percentage: 0.9, device: 'Android', deviceId: 'phone', updatedAt: instant(2) });
    await documents().put(newer);
    expect(await documents().get('u1', DOC)).toEqual(newer);
  });

  it("keeps each user's record of the same document apart", async () => {
    await seedUsers('u1', 'u2');
    await documents().put(aRecord('u1', { percentage: 0.1 }));
    await documents().put(aRecord('u2', { percentage: 0.7 }));
    expect((await documents().get('u1', DOC))?.percentage).toBe(0.1);
    expect((await documents().get('u2', DOC))?.percentage).toBe(0.7);
  });

  it("deleteForUser removes that user's records and no one else's", async () => {
    await seedUsers('u1', 'u2');
    await documents().put(aRecord('u1'));
    await documents().put(aRecord('u1', { document: OTHER_DOC }));
    await documents().put(aRecord('u2'));
    await documents().deleteForUser('u1');
    expect(await documents().get('u1', DOC)).toBeNull();
    expect(await documents().get('u1', OTHER_DOC)).toBeNull();
    expect(await documents().get('u2', DOC)).toEqual(aRecord('u2'));
  });

  it('two first writes of one key at once leave one record, one of the two', async () => {
    await seedUsers('u1');
    const a = aRecord('u1', { percentage: 0.2 });
    const b = aRecord('u1', { percentage: 0.4 });
    await Promise.all([documents().put(a), documents().put(b)]);
    expect([a, b]).toContainEqual(await documents().get('u1', DOC));
  });
}

describe.each(STORE_FACTORIES)('SyncDocumentRepository contract ($name)', (factory) => syncDocumentRepositoryContract(factory));
