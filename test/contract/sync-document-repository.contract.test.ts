import { describe, expect, it } from 'vitest';
import type { SyncDocument } from '../../src/domain/kosync.js';
import { aUser, instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, useStore } from './stores.js';

const DOC = '0123456789abcdef0123456789abcdef';
const OTHER_DOC = 'fedcba9876543210fedcba9876543210';
/** The cap the ordinary cases never reach. */
const KEEP = 10_000;
const docNo = (i: number) => `doc-${String(i).padStart(4, '0')}`;

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
    await documents().put(aRecord('u1'), KEEP);
    expect(await documents().get('u1', DOC)).toEqual(aRecord('u1'));
    expect(await documents().get('u1', OTHER_DOC)).toBeNull();
  });

  it('replaces the (user, document) record on a second put', async () => {
    await seedUsers('u1');
    await documents().put(aRecord('u1'), KEEP);
    const newer = aRecord('u1', { progress: '42', percentage: 0.9, device: 'Android', deviceId: 'phone', updatedAt: instant(2) });
    await documents().put(newer, KEEP);
    expect(await documents().get('u1', DOC)).toEqual(newer);
  });

  it("keeps each user's record of the same document apart", async () => {
    await seedUsers('u1', 'u2');
    await documents().put(aRecord('u1', { percentage: 0.1 }), KEEP);
    await documents().put(aRecord('u2', { percentage: 0.7 }), KEEP);
    expect((await documents().get('u1', DOC))?.percentage).toBe(0.1);
    expect((await documents().get('u2', DOC))?.percentage).toBe(0.7);
  });

  it("deleteForUser removes that user's records and no one else's", async () => {
    await seedUsers('u1', 'u2');
    await documents().put(aRecord('u1'), KEEP);
    await documents().put(aRecord('u1', { document: OTHER_DOC }), KEEP);
    await documents().put(aRecord('u2'), KEEP);
    await documents().deleteForUser('u1');
    expect(await documents().get('u1', DOC)).toBeNull();
    expect(await documents().get('u1', OTHER_DOC)).toBeNull();
    expect(await documents().get('u2', DOC)).toEqual(aRecord('u2'));
  });

  it('two first writes of one key at once leave one record, one of the two', async () => {
    await seedUsers('u1');
    const a = aRecord('u1', { percentage: 0.2 });
    const b = aRecord('u1', { percentage: 0.4 });
    await Promise.all([documents().put(a, KEEP), documents().put(b, KEEP)]);
    expect([a, b]).toContainEqual(await documents().get('u1', DOC));
  });

  /** The user's documents among those numbered below n that are still kept. */
  async function kept(userId: string, n: number): Promise<string[]> {
    const found = await Promise.all(Array.from({ length: n }, (_, i) => documents().get(userId, docNo(i))));
    return found.filter((r) => r !== null).map((r) => r.document);
  }

  it('keeps at most `keep` documents per user, forgetting the least recently synced first; another user keeps theirs', async () => {
    await seedUsers('u1', 'u2');
    await documents().put(aRecord('u2', { document: docNo(0), updatedAt: instant(0) }), 3);
    for (let i = 0; i < 3; i++) await documents().put(aRecord('u1', { document: docNo(i), updatedAt: instant(10 + i) }), 3);
    expect(await kept('u1', 6)).toEqual([docNo(0), docNo(1), docNo(2)]);
    // Syncing doc 0 again makes doc 1 the least recently synced.
    await documents().put(aRecord('u1', { document: docNo(0), updatedAt: instant(20) }), 3);
    await documents().put(aRecord('u1', { document: docNo(3), updatedAt: instant(21) }), 3);
    expect(await kept('u1', 6)).toEqual([docNo(0), docNo(2), docNo(3)]);
    await documents().put(aRecord('u1', { document: docNo(4), updatedAt: instant(22) }), 3);
    await documents().put(aRecord('u1', { document: docNo(5), updatedAt: instant(23) }), 3);
    expect(await kept('u1', 6)).toEqual([docNo(3), docNo(4), docNo(5)]);
    expect(await kept('u2', 1)).toEqual([docNo(0)]);
  });

  it('among records synced at the same instant, forgets the lowest document first', async () => {
    await seedUsers('u1');
    for (const i of [3, 1, 2]) await documents().put(aRecord('u1', { document: docNo(i), updatedAt: instant(5) }), 2);
    expect(await kept('u1', 4)).toEqual([docNo(2), docNo(3)]);
    await documents().put(aRecord('u1', { document: docNo(0), updatedAt: instant(6) }), 2);
    expect(await kept('u1', 4)).toEqual([docNo(0), docNo(3)]);
  });

  it('120 new documents written at once at the cap: never more than `keep` stay, and the newest are the ones kept', async () => {
    await seedUsers('u1');
    const keep = 40;
    for (let i = 0; i < keep; i++) await documents().put(aRecord('u1', { document: docNo(i), updatedAt: instant(i) }), keep);
    await Promise.all(Array.from({ length: 120 }, (_, i) => documents().put(aRecord('u1', { document: docNo(keep + i), updatedAt: instant(1000 + i) }), keep)));
    const left = await kept('u1', keep + 120);
    expect(left).toEqual(Array.from({ length: keep }, (_, i) => docNo(120 + i)));
  });
}

describe.each(STORE_FACTORIES)('SyncDocumentRepository contract ($name)', (factory) => syncDocumentRepositoryContract(factory));
