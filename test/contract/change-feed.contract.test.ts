import { describe, expect, it } from 'vitest';
import { bookChange, memberChange, progressChange, shelfChange } from '../../src/domain/change-feed.js';
import type { StoredProgress } from '../../src/domain/reading-progress.js';
import { aBook, aUser, instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, itWhere, useStore } from './stores.js';

const aProgress = (overrides: Partial<StoredProgress> = {}): StoredProgress => ({
  userId: 'alice', bookId: 'b1', status: 'reading', percentage: 0.25, locator: null, device: null, deviceId: null, updatedAt: instant(100), ...overrides,
});

function changeFeedContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const feed = () => store().changes;
  const seqs = async (kind: 'book' | 'shelf' | 'member' | 'progress', groups: string[], after = 0) =>
    (await feed().since(kind, groups, after, 100)).map((c) => `${c.entityId}${c.removed ? '-' : ''}`);

  it('keeps one entry per entity, moved past every other on each change, and numbers rise in the order recorded', async () => {
    await feed().record([bookChange('a'), bookChange('b')], instant(1));
    await feed().record([bookChange('c')], instant(2));
    await feed().record([bookChange('a')], instant(3));
    expect(await seqs('book', [''])).toEqual(['b', 'c', 'a']);
    const all = await feed().since('book', [''], 0, 100);
    expect(all.map((c) => c.seq)).toEqual([...all.map((c) => c.seq)].sort((x, y) => x - y));
    expect(await feed().head()).toBe(all.at(-1)!.seq);
    expect(all.at(-1)!.changedAt).toEqual(instant(3));
  });

  it('reads from a cursor, at most the limit, only the kind and groups asked', async () => {
    await feed().record([bookChange('a'), progressChange('u1', 'a'), progressChange('u2', 'a'), shelfChange('s1', 'u1'), memberChange('s1', 'a')], instant(1));
    const [first] = await feed().since('book', [''], 0, 1);
    await feed().record([bookChange('b'), bookChange('c')], instant(2));
    expect(await seqs('book', [''], first!.seq)).toEqual(['b', 'c']);
    expect((await feed().since('book', [''], first!.seq, 1)).map((c) => c.entityId)).toEqual(['b']);
    expect(await seqs('progress', ['u1'])).toEqual(['u1/a']);
    expect(await seqs('progress', ['u1', 'u2'])).toEqual(['u1/a', 'u2/a']);
    expect(await seqs('shelf', ['u1'])).toEqual(['s1']);
    expect(await seqs('member', ['s1'])).toEqual(['s1/a']);
    expect(await seqs('member', ['s2'])).toEqual([]);
  });

  it('keeps the first number while the entity lives, and starts a new one after its removal', async () => {
    await feed().record([bookChange('a')], instant(1));
    const [created] = await feed().since('book', [''], 0, 10);
    await feed().record([bookChange('a')], instant(2));
    const [changed] = await feed().since('book', [''], 0, 10);
    expect(changed!.firstSeq).toBe(created!.seq);
    expect(changed!.seq).toBeGreaterThan(created!.seq);
    await feed().record([bookChange('a', true)], instant(3));
    const [removed] = await feed().since('book', [''], 0, 10);
    expect(removed).toMatchObject({ removed: true, firstSeq: created!.seq });
    await feed().record([bookChange('a')], instant(4));
    const [again] = await feed().since('book', [''], 0, 10);
    expect(again).toMatchObject({ removed: false, firstSeq: again!.seq });
  });

  it('gives every one of many concurrent records its own number', async () => {
    await Promise.all(Array.from({ length: 40 }, (_, i) => feed().record([bookChange(`b${i}`)], instant(i))));
    const all = await feed().since('book', [''], 0, 100);
    expect(new Set(all.map((c) => c.seq)).size).toBe(40);
    expect(await feed().head()).toBeGreaterThanOrEqual(40);
  });

  itWhere(factory, 'transactions')('a reader paging while 100 writers record at once meets every entity, none after its cursor passed it', async () => {
    const seen = new Set<string>();
    let cursor = 0;
    let writing = true;
    const read = async () => {
      for (;;) {
        const page = await feed().since('book', [''], cursor, 7);
        for (const c of page) seen.add(c.entityId);
        if (page.length > 0) cursor = page.at(-1)!.seq;
        else if (!writing) return;
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const reader = read();
    await Promise.all(Array.from({ length: 100 }, (_, i) => feed().record([bookChange(`w${i % 60}`)], instant(i))));
    writing = false;
    await reader;
    expect(seen.size).toBe(60);
  });

  it('finds stored books without an entry, and present entries, each in id order after a cursor', async () => {
    for (const id of ['b1', 'b2', 'b3']) await store().books.create(aBook({ id }));
    await feed().record([bookChange('b2'), bookChange('gone'), bookChange('old', true)], instant(1));
    expect(await feed().untrackedBooks(null, 10)).toEqual(['b1', 'b3']);
    expect(await feed().untrackedBooks('b1', 1)).toEqual(['b3']);
    expect(await feed().presentBooks(null, 10)).toEqual(['b2', 'gone']);
    expect(await feed().presentBooks('b2', 10)).toEqual(['gone']);
  });

  describe('reading states whose entry a crash lost (staleProgress)', () => {
    /** Users alice and bob, books b1..b3, so foreign keys hold. */
    const readers = async () => {
      for (const id of ['alice', 'bob']) await store().users.create(aUser({ id, username: id, email: `${id}@example.test` }));
      for (const id of ['b1', 'b2', 'b3']) await store().books.create(aBook({ id }));
    };
    const save = (userId: string, bookId: string, at: number) => store().progress.put(aProgress({ userId, bookId, updatedAt: instant(at) }));
    const walk = async (limit: number) => {
      const windows: string[][] = [];
      for (let cursor: string | null = null, guard = 0; guard < 100; guard++) {
        const { stale, next } = await feed().staleProgress(cursor, limit);
        windows.push(stale.map((p) => `${p.userId}/${p.bookId}`));
        if (next === null) return windows;
        cursor = next;
      }
      throw new Error('the walk never ended');
    };

    it('finds those whose entry is missing, marked removed or older than the state; an entry as new or newer is kept', async () => {
      await readers();
      await save('alice', 'b1', 100);
      await feed().record([progressChange('alice', 'b1')], instant(100)); // as new as the state
      await feed().record([progressChange('alice', 'b2')], instant(50));
      await save('alice', 'b2', 100); // its new entry lost
      await save('alice', 'b3', 100); // never recorded
      await feed().record([progressChange('bob', 'b1', true)], instant(60));
      await save('bob', 'b1', 100); // read again after a removal, its entry lost
      await save('bob', 'b2', 100);
      await feed().record([progressChange('bob', 'b2')], instant(200));
      const windows = await walk(10);
      expect(windows.flat().sort()).toEqual(['alice/b2', 'alice/b3', 'bob/b1']);
      expect(windows.at(-1)).toEqual([]);
    });

    it('looks at no more than the limit per window and meets every state once over the walk', async () => {
      await readers();
      for (const user of ['alice', 'bob']) for (const book of ['b1', 'b2', 'b3']) await save(user, book, 100);
      await feed().record([progressChange('alice', 'b2'), progressChange('bob', 'b3')], instant(100));
      const windows = await walk(2);
      expect(windows.every((w) => w.length <= 2)).toBe(true);
      expect(windows.flat().sort()).toEqual(['alice/b1', 'alice/b3', 'bob/b1', 'bob/b2']);
      expect(windows.length).toBe(4); // three windows of 2, 2 and 2 states, then an empty one
    });

    itWhere(factory, 'transactions')('a walk that records what it finds while 100 writers save states and record theirs leaves no state stale', async () => {
      await readers();
      let now = 1_000;
      const writers = Array.from({ length: 100 }, async (_, i) => {
        const [userId, bookId] = [i % 2 ? 'alice' : 'bob', `b${(i % 3) + 1}`];
        const at = ++now;
        await save(userId, bookId, at);
        // Every fifth writer "crashes" before its entry: only the reconcile can record it.
        if (i % 5 !== 0) await feed().record([progressChange(userId, bookId)], instant(at));
      });
      const reconcile = async () => {
        for (let cursor: string | null = null; ;) {
          const { stale, next } = await feed().staleProgress(cursor, 2);
          await feed().record(stale.map((p) => progressChange(p.userId, p.bookId)), instant(++now));
          if (next === null) return;
          cursor = next;
        }
      };
      await Promise.all([...writers, reconcile()]);
      await reconcile(); // the housekeeping run after the crash
      expect((await walk(10)).flat()).toEqual([]);
      expect((await feed().since('progress', ['alice', 'bob'], 0, 100)).map((c) => c.entityId).sort())
        .toEqual(['alice/b1', 'alice/b2', 'alice/b3', 'bob/b1', 'bob/b2', 'bob/b3']);
    });
  });

  it('purges only removal entries older than the cutoff', async () => {
    await feed().record([bookChange('a', true), bookChange('b')], instant(1));
    await feed().record([bookChange('c', true)], instant(10));
    expect(await feed().purgeRemovedBefore(instant(5))).toBe(1);
    expect(await seqs('book', [''])).toEqual(['b', 'c-']);
  });
}

for (const factory of STORE_FACTORIES) {
  describe(`ChangeFeedRepository contract (${factory.name})`, () => changeFeedContract(factory));
}
