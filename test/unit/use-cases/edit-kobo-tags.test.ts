import { beforeEach, describe, expect, it } from 'vitest';
import type { KoboSession } from '../../../src/application/use-cases/authenticate-kobo-device.js';
import type { Actor } from '../../../src/domain/actor.js';
import type { Book } from '../../../src/domain/book.js';
import type { Shelf } from '../../../src/domain/shelf.js';
import type { User } from '../../../src/domain/user.js';
import { aKoboSession, aShelf, aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
let owner: { user: User; actor: Actor };
let books: Book[];
beforeEach(async () => {
  w = aWorld();
  owner = await w.storeUser();
  books = await w.storeBooks(4);
});

const codeOf = async (promise: Promise<unknown>) => (await errorOf(promise)).code;
const bookIdsOf = async (shelfId: string) => (await w.store.shelves.findById(shelfId))?.bookIds;
const ownShelf = async (name: string, bookIds: string[] = []): Promise<Shelf> => {
  const shelf = aShelf({ name, owner: { id: owner.user.id, username: owner.user.username }, bookIds });
  await w.store.shelves.create(shelf);
  return shelf;
};
const ownShelves = async () => (await w.store.shelves.listVisible(owner.user.id, true, { page: 1, pageSize: 50 })).items.map((s) => s.name).sort();

describe('EditKoboTags on a device that gets the whole library', () => {
  let kobo: KoboSession;
  beforeEach(async () => {
    kobo = await aKoboSession(w, owner);
  });

  it('makes a collection a new shelf with its known books (unknown ones ignored, repeats once)', async () => {
    const [a, b] = books;
    const shelf = await w.editKoboTags.create(kobo, 'Holiday', [a!.id, 'no-such-book', b!.id, a!.id]);
    expect(shelf).toMatchObject({ name: 'Holiday', owner: { id: owner.user.id }, bookIds: [a!.id, b!.id] });
    expect(await bookIdsOf(shelf.id)).toEqual([a!.id, b!.id]);
  });

  it('takes a collection named as an existing shelf (in any case) as that shelf, adding to it', async () => {
    const [a, b] = books;
    const existing = await ownShelf('Holiday', [a!.id]);
    const shelf = await w.editKoboTags.create(kobo, ' holiday ', [b!.id]);
    expect(shelf.id).toBe(existing.id);
    expect(await bookIdsOf(existing.id)).toEqual([a!.id, b!.id]);
    expect(await ownShelves()).toEqual(['Holiday']);
  });

  it('renames, fills, empties and deletes the owner\'s shelves; a book not on the shelf is ignored', async () => {
    const [a, b, c] = books;
    const shelf = await ownShelf('Old name');
    await w.editKoboTags.rename(kobo, shelf.id, 'New name');
    await w.editKoboTags.addItems(kobo, shelf.id, [a!.id, b!.id, 'no-such-book']);
    await w.editKoboTags.removeItems(kobo, shelf.id, [a!.id, c!.id, a!.id]);
    expect(await w.store.shelves.findById(shelf.id)).toMatchObject({ name: 'New name', bookIds: [b!.id] });
    await w.editKoboTags.delete(kobo, shelf.id);
    expect(await w.store.shelves.findById(shelf.id)).toBeNull();
  });

  it('changes no shelf of another user (shelf_not_found or permission_denied, as the shelf rules say)', async () => {
    const other = await w.storeUser();
    const theirs = aShelf({ owner: { id: other.user.id, username: other.user.username }, bookIds: [] });
    await w.store.shelves.create(theirs);
    expect(await codeOf(w.editKoboTags.rename(kobo, theirs.id, 'Mine now'))).toBe('shelf_not_found');
    expect(await codeOf(w.editKoboTags.addItems(kobo, theirs.id, [books[0]!.id]))).toBe('shelf_not_found');
    expect(await w.store.shelves.findById(theirs.id)).toEqual(theirs);
  });
});

describe('EditKoboTags on a device limited to shelves', () => {
  let mine: Shelf;
  let second: Shelf;
  let outside: Shelf;
  let kobo: KoboSession & { readonly secret: string };
  beforeEach(async () => {
    const [a, b, c] = books;
    mine = await ownShelf('Mine', [a!.id]);
    second = await ownShelf('Second', [b!.id]);
    outside = await ownShelf('Outside', [c!.id]);
    kobo = await aKoboSession(w, owner, [mine.id, second.id]);
  });

  it('adds and removes only books on its shelves: any other book is ignored, as an unknown one is', async () => {
    const [a, b, c, d] = books;
    await w.editKoboTags.addItems(kobo, mine.id, [b!.id, c!.id, d!.id]);
    expect(await bookIdsOf(mine.id)).toEqual([a!.id, b!.id]);
    await w.addBookToShelf.execute(owner.actor, { shelfId: mine.id, bookId: d!.id }); // d: on its shelf now, by the owner
    await w.editKoboTags.removeItems(kobo, mine.id, [a!.id, d!.id]);
    expect(await bookIdsOf(mine.id)).toEqual([b!.id]);
    expect(await bookIdsOf(outside.id)).toEqual([c!.id]);
  });

  it('answers shelf_not_found for any shelf but its own, and changes nothing there', async () => {
    for (const edit of [
      w.editKoboTags.rename(kobo, outside.id, 'Taken'), w.editKoboTags.delete(kobo, outside.id),
      w.editKoboTags.addItems(kobo, outside.id, [books[0]!.id]), w.editKoboTags.removeItems(kobo, outside.id, [books[2]!.id]),
    ]) expect(await codeOf(edit)).toBe('shelf_not_found');
    expect(await w.store.shelves.findById(outside.id)).toMatchObject({ name: 'Outside', bookIds: [books[2]!.id] });
  });

  it('takes a collection of its own shelf\'s name as that shelf, and refuses a new name (403) making no shelf', async () => {
    const [a, b] = books;
    expect((await w.editKoboTags.create(kobo, 'SECOND', [a!.id, books[2]!.id])).id).toBe(second.id);
    expect(await bookIdsOf(second.id)).toEqual([b!.id, a!.id]);
    expect(await codeOf(w.editKoboTags.create(kobo, 'Brand new', []))).toBe('permission_denied');
    expect(await codeOf(w.editKoboTags.create(kobo, 'Outside', []))).toBe('permission_denied');
    expect(await ownShelves()).toEqual(['Mine', 'Outside', 'Second']);
  });

  it('refuses an owner without shelves:write even its own shelf\'s name (403)', async () => {
    await w.store.users.updateAccess(owner.user.id, { roles: ['reader'] }, w.clock.now());
    const reading = await w.authenticateKoboDevice.execute({ secret: kobo.secret, clientAddress: '198.51.100.1', hardwareId: null });
    expect(await codeOf(w.editKoboTags.create(reading, 'Mine', []))).toBe('permission_denied');
    expect(await bookIdsOf(mine.id)).toEqual([books[0]!.id]);
  });
});
