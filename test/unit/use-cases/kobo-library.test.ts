import { beforeEach, describe, expect, it } from 'vitest';
import type { KoboSession } from '../../../src/application/use-cases/authenticate-kobo-device.js';
import type { Actor } from '../../../src/domain/actor.js';
import type { Book } from '../../../src/domain/book.js';
import type { User } from '../../../src/domain/user.js';
import { aKoboSession, aShelf, aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
let owner: { user: User; actor: Actor };
let epub: Book;
let pdf: Book;
let mobi: Book;
let onShelf: Book;
let shelfId: string;
beforeEach(async () => {
  w = aWorld({ idPrefix: 'device-' });
  owner = await w.storeUser();
  epub = await w.storeBook({ format: 'epub' });
  pdf = await w.storeBook({ format: 'pdf', fileName: 'paper.pdf' });
  mobi = await w.storeBook({ format: 'mobi', fileName: 'old.mobi' });
  onShelf = await w.storeBook({ format: 'epub' });
  const shelf = aShelf({ owner: { id: owner.user.id, username: owner.user.username }, bookIds: [onShelf.id, mobi.id] });
  await w.store.shelves.create(shelf);
  shelfId = shelf.id;
});

const codeOf = async (promise: Promise<unknown>) => (await errorOf(promise)).code;
const archived = (session: KoboSession) => w.store.koboDevices.archivedAmong(session.device.id, [epub.id, pdf.id, mobi.id, onShelf.id]);

describe('GetKoboBook', () => {
  it('gives an EPUB or PDF the owner may read; another format or an unknown id is book_not_found', async () => {
    const kobo = await aKoboSession(w, owner);
    expect(await w.getKoboBook.execute(kobo, epub.id)).toEqual(epub);
    expect(await w.getKoboBook.execute(kobo, pdf.id)).toEqual(pdf);
    expect(await errorOf(w.getKoboBook.execute(kobo, mobi.id))).toMatchObject({ kind: 'not_found', code: 'book_not_found' });
    expect(await codeOf(w.getKoboBook.execute(kobo, 'no-such-book'))).toBe('book_not_found');
  });

  it('gives a device limited to shelves only the books on them', async () => {
    const kobo = await aKoboSession(w, owner, [shelfId]);
    expect(await w.getKoboBook.execute(kobo, onShelf.id)).toEqual(onShelf);
    expect(await codeOf(w.getKoboBook.execute(kobo, epub.id))).toBe('book_not_found');
    expect(await codeOf(w.getKoboBook.execute(kobo, mobi.id))).toBe('book_not_found');
  });

  it('stops giving the books of another\'s shelf once that shelf is made private', async () => {
    const other = await w.storeUser();
    const shared = aShelf({ owner: { id: other.user.id, username: other.user.username }, isPublic: true, bookIds: [epub.id] });
    await w.store.shelves.create(shared);
    const kobo = await aKoboSession(w, owner, [shared.id]);
    expect(await w.getKoboBook.execute(kobo, epub.id)).toEqual(epub);
    await w.updateShelf.execute(other.actor, { shelfId: shared.id, isPublic: false });
    expect(await codeOf(w.getKoboBook.execute(kobo, epub.id))).toBe('book_not_found');
  });

  it('keeps an archived book open to the device (its last reading state may still arrive)', async () => {
    const kobo = await aKoboSession(w, owner);
    await w.archiveKoboBook.execute(kobo, epub.id);
    expect(await w.getKoboBook.execute(kobo, epub.id)).toEqual(epub);
  });
});

describe('ArchiveKoboBook', () => {
  it('hides the book from this device only; the book itself and other devices keep it', async () => {
    const kobo = await aKoboSession(w, owner);
    const other = await aKoboSession(w, owner);
    await w.archiveKoboBook.execute(kobo, epub.id);
    await w.archiveKoboBook.execute(kobo, epub.id);
    expect(await archived(kobo)).toEqual(new Set([epub.id]));
    expect(await archived(other)).toEqual(new Set());
    expect(await w.store.books.findById(epub.id)).toEqual(epub);
  });

  it('is book_not_found for a book the device does not get, and archives nothing', async () => {
    const limited = await aKoboSession(w, owner, [shelfId]);
    for (const id of [epub.id, mobi.id, 'no-such-book']) expect(await codeOf(w.archiveKoboBook.execute(limited, id))).toBe('book_not_found');
    expect(await archived(limited)).toEqual(new Set());
  });

  it('archives nothing for a device removed after its request was authenticated (invalid_token)', async () => {
    const kobo = await aKoboSession(w, owner);
    await w.revokeKoboDevice.execute(owner.actor, kobo.device.id);
    expect(await codeOf(w.archiveKoboBook.execute(kobo, epub.id))).toBe('invalid_token');
    expect(w.store.db.koboArchived.size).toBe(0);
  });
});
