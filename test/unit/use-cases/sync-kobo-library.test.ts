import { beforeEach, describe, expect, it } from 'vitest';
import type { KoboSession } from '../../../src/application/use-cases/authenticate-kobo-device.js';
import { koboProgressDeviceId, type KoboSyncCursor, type KoboSyncEvent } from '../../../src/application/use-cases/sync-kobo-library.js';
import type { Actor } from '../../../src/domain/actor.js';
import type { Book } from '../../../src/domain/book.js';
import { CHANGE_TOMBSTONE_TTL_MS } from '../../../src/domain/change-feed.js';
import type { User } from '../../../src/domain/user.js';
import { aKoboSession, aWorld, type World, type WorldOptions } from '../../support/kit.js';

let w: World;
let owner: { user: User; actor: Actor };
const start = async (options: WorldOptions = {}) => {
  w = aWorld(options);
  owner = await w.storeUser();
};
beforeEach(() => start());

const ownBook = (overrides: Partial<Book> = {}) => w.storeBook({ owner: { id: owner.user.id, username: owner.user.username }, ...overrides });
const shelf = async (name: string, bookIds: string[]) => w.createShelf.execute(owner.actor, { name, bookIds });

/** Each event as a line: `book <id> (new)`, `removed <id>`, `tag <name> (new) [<ids>]`, `tag-removed <id>`, `state <id> <percentage>`. */
function lines(events: readonly KoboSyncEvent[]): string[] {
  return events.map((e) => {
    switch (e.type) {
      case 'book': return `book ${e.book.id}${e.isNew ? ' (new)' : ''}${e.progress ? ` at ${e.progress.percentage}` : ''}`;
      case 'book-removed': return `removed ${e.bookId}`;
      case 'tag': return `tag ${e.shelf.name}${e.isNew ? ' (new)' : ''} [${e.bookIds.join(' ')}]`;
      case 'tag-removed': return `tag-removed ${e.shelfId}`;
      case 'state': return `state ${e.book.id} ${e.progress?.percentage ?? 'cleared'}`;
    }
  });
}

/** Syncs page after page until the device is told no more follow, as a Kobo does. */
async function round(kobo: KoboSession, cursor: KoboSyncCursor | null, betweenPages: (page: number) => Promise<void> = async () => {}) {
  const events: KoboSyncEvent[] = [];
  const cursors: KoboSyncCursor[] = [];
  for (let page = 1; ; page++) {
    const result = await w.syncKoboLibrary.execute(kobo, cursor);
    events.push(...result.events);
    cursor = result.cursor;
    cursors.push(cursor);
    if (!result.more) return { lines: lines(events), cursor, cursors };
    if (page > 100) throw new Error('the sync never ended');
    await betweenPages(page);
  }
}

describe('SyncKoboLibrary: a device that gets the whole library', () => {
  it('first sends every EPUB and PDF as new, with its reading state, and the owner\'s shelves as tags of the books it gets', async () => {
    const epub = await ownBook({ format: 'epub' });
    const pdf = await ownBook({ format: 'pdf' });
    const mobi = await ownBook({ format: 'mobi' });
    await w.updateProgress.execute(owner.actor, { bookId: epub.id, update: { percentage: 0.5, deviceId: 'phone' } });
    await shelf('Favourites', [mobi.id, epub.id]);
    const kobo = await aKoboSession(w, owner);
    const first = await round(kobo, null);
    expect(first.lines).toEqual([`book ${epub.id} (new) at 0.5`, `book ${pdf.id} (new)`, `tag Favourites (new) [${epub.id}]`]);
    expect(first.cursors).toHaveLength(1);
    expect(first.cursor).toEqual({ deviceId: kobo.device.id, round: first.cursor.at, at: first.cursor.at, roundEndedAt: w.clock.now() });
    expect(first.cursor.at.progress).toBe(await w.store.changes.head());
    expect((await round(kobo, first.cursor)).lines).toEqual([]);
  });

  it('then sends only what changed: a book edited, a book added (new), a book deleted, a reading state written elsewhere, never its own', async () => {
    const [edited, deleted, read, ownRead] = [await ownBook(), await ownBook(), await ownBook({ format: 'pdf' }), await ownBook()];
    const kobo = await aKoboSession(w, owner);
    const { cursor } = await round(kobo, null);
    w.clock.advance(60_000);
    await w.updateBook.execute(owner.actor, { id: edited!.id, changes: { title: 'A new title' } });
    const added = await ownBook();
    await w.recorded.books.delete(deleted!.id);
    await w.updateProgress.execute(owner.actor, { bookId: read!.id, update: { percentage: 0.3, deviceId: 'phone' } });
    await w.updateProgress.execute(kobo.actor, { bookId: ownRead!.id, update: { percentage: 0.9, deviceId: koboProgressDeviceId(kobo.device.id) } });
    const next = await round(kobo, cursor);
    expect(next.lines).toEqual([`book ${edited!.id}`, `book ${added.id} (new)`, `removed ${deleted!.id}`, `state ${read!.id} 0.3`]);
    expect(next.cursor.roundEndedAt).toEqual(w.clock.now());
    expect((await round(kobo, next.cursor)).lines).toEqual([]);
  });

  it('sends nothing more of a book archived on the device', async () => {
    const book = await ownBook();
    const kobo = await aKoboSession(w, owner);
    const { cursor } = await round(kobo, null);
    await w.archiveKoboBook.execute(kobo, book.id);
    await w.updateBook.execute(owner.actor, { id: book.id, changes: { title: 'Edited after archiving' } });
    expect((await round(kobo, cursor)).lines).toEqual([]);
  });

  it('tells the device of shelves renamed (not new) and deleted', async () => {
    const kept = await shelf('Kept', []);
    const dropped = await shelf('Dropped', []);
    const kobo = await aKoboSession(w, owner);
    const { cursor } = await round(kobo, null);
    await w.updateShelf.execute(owner.actor, { shelfId: kept.id, name: 'Renamed' });
    await w.deleteShelf.execute(owner.actor, dropped.id);
    expect((await round(kobo, cursor)).lines).toEqual(['tag Renamed []', `tag-removed ${dropped.id}`]);
  });

  it('pages a round (page size 2): every book once, new; the round stays open until the last page; a book deleted mid-round is removed', async () => {
    await start({ koboSyncPageSize: 2 });
    const books = [await ownBook(), await ownBook(), await ownBook(), await ownBook(), await ownBook()];
    const kobo = await aKoboSession(w, owner);
    const paged = await round(kobo, null, async (page) => {
      if (page === 1) await w.recorded.books.delete(books[0]!.id); // sent on page 1, deleted before page 2
    });
    expect(paged.lines).toEqual([...books.map((b) => `book ${b.id} (new)`), `removed ${books[0]!.id}`]);
    expect(paged.cursors.length).toBeGreaterThan(2);
    const [firstPage] = paged.cursors;
    expect(paged.cursors.slice(0, -1).every((c) => JSON.stringify(c.round) === JSON.stringify(firstPage!.round))).toBe(true);
    expect(paged.cursor.round).toEqual(paged.cursor.at);
    expect((await round(kobo, paged.cursor)).lines).toEqual([]);
  });

  it('starts over from the beginning for a cursor of another device, or one older than the removals the feed keeps', async () => {
    const book = await ownBook();
    const kobo = await aKoboSession(w, owner);
    const other = await aKoboSession(w, owner);
    const { cursor } = await round(kobo, null);
    expect((await round(other, cursor)).lines).toEqual([`book ${book.id} (new)`]);
    w.clock.advance(CHANGE_TOMBSTONE_TTL_MS);
    expect((await round(kobo, cursor)).lines).toEqual([]);
    w.clock.advance(1);
    expect((await round(kobo, cursor)).lines).toEqual([`book ${book.id} (new)`]);
  });
});

describe('SyncKoboLibrary: a device limited to shelves', () => {
  it('gets only the books on its shelves, and loses a book taken off them unless another of its shelves holds it', async () => {
    const [a, b, c, d] = [await ownBook(), await ownBook(), await ownBook(), await ownBook()];
    const first = await shelf('First', [a!.id, b!.id]);
    const second = await shelf('Second', [b!.id]);
    await shelf('Outside', [c!.id]);
    const kobo = await aKoboSession(w, owner, [first.id, second.id]);
    const initial = await round(kobo, null);
    // b, on both of its shelves, is sent once per shelf entry on a first sync.
    expect(new Set(initial.lines.filter((l) => l.startsWith('book')))).toEqual(new Set([`book ${a!.id} (new)`, `book ${b!.id} (new)`]));
    expect(initial.lines.filter((l) => l.startsWith('tag'))).toEqual([`tag First (new) [${a!.id} ${b!.id}]`, `tag Second (new) [${b!.id}]`, 'tag Outside (new) []']);

    await w.removeBookFromShelf.execute(owner.actor, { shelfId: first.id, bookId: a!.id });
    await w.removeBookFromShelf.execute(owner.actor, { shelfId: first.id, bookId: b!.id }); // still on Second
    await w.addBookToShelf.execute(owner.actor, { shelfId: second.id, bookId: d!.id });
    await w.updateBook.execute(owner.actor, { id: c!.id, changes: { title: 'Off its shelves' } });
    const next = await round(kobo, initial.cursor);
    expect(next.lines.filter((l) => !l.startsWith('tag'))).toEqual([`removed ${a!.id}`, `book ${d!.id} (new)`]);
    expect(next.lines.filter((l) => l.startsWith('tag'))).toEqual([`tag First []`, `tag Second [${b!.id} ${d!.id}]`]);
  });
});
