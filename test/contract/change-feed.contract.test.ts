import { describe, expect, it } from 'vitest';
import { bookChange, memberChange, progressChange, shelfChange } from '../../src/domain/change-feed.js';
import { aBook, instant } from '../support/kit.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, itWhere, useStore } from './stores.js';

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
