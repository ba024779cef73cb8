import { beforeEach, describe, expect, it } from 'vitest';
import { admin, alice, aWorld, bob, errorOf, nobody, reader, type World } from '../../support/kit.js';

let w: World;
let bookId: string;
let privateShelf: string;
let publicShelf: string;
beforeEach(async () => {
  w = aWorld({ idPrefix: 'shelf-' });
  [bookId] = (await w.storeBooks(1)).map((b) => b.id) as [string];
  privateShelf = (await w.createShelf.execute(alice, { name: 'Private', bookIds: [bookId] })).id;
  publicShelf = (await w.createShelf.execute(alice, { name: 'Public', isPublic: true, bookIds: [bookId] })).id;
});

/** Every use case that names a shelf, as the given actor. */
const callsOn = (actor: typeof alice, shelfId: string) => ({
  get: () => w.getShelf.execute(actor, shelfId),
  books: () => w.listShelfBooks.execute(actor, { shelfId, page: 1, pageSize: 20 }),
  update: () => w.updateShelf.execute(actor, { shelfId, name: 'Taken over' }),
  remove: () => w.deleteShelf.execute(actor, shelfId),
  addBook: () => w.addBookToShelf.execute(actor, { shelfId, bookId }),
  removeBook: () => w.removeBookFromShelf.execute(actor, { shelfId, bookId }),
});

describe('shelf access (findVisibleShelf, findEditableShelf) across every shelf use case', () => {
  it("answers shelf_not_found for another user's private shelf on every use case, and changes nothing", async () => {
    for (const [name, call] of Object.entries(callsOn(bob, privateShelf))) {
      const error = await errorOf(call());
      expect([name, error.kind, error.code]).toEqual([name, 'not_found', 'shelf_not_found']);
    }
    const stored = await w.store.shelves.findById(privateShelf);
    expect(stored).toMatchObject({ name: 'Private', bookIds: [bookId] });
  });

  it('answers exactly the same for a shelf id that does not exist', async () => {
    for (const call of Object.values(callsOn(bob, 'no-such-shelf'))) {
      expect((await errorOf(call())).code).toBe('shelf_not_found');
    }
  });

  it("lets others read a public shelf but refuses every change with permission_denied", async () => {
    expect((await w.getShelf.execute(bob, publicShelf)).name).toBe('Public');
    expect((await w.listShelfBooks.execute(bob, { shelfId: publicShelf, page: 1, pageSize: 20 })).items.map((b) => b.id)).toEqual([bookId]);
    const { update, remove, addBook, removeBook } = callsOn(bob, publicShelf);
    for (const call of [update, remove, addBook, removeBook]) {
      expect(await errorOf(call())).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
    }
    expect(await w.store.shelves.findById(publicShelf)).toMatchObject({ name: 'Public', bookIds: [bookId] });
  });

  it('lets a reader list and read public shelves but not create or change anything', async () => {
    expect((await w.listShelves.execute(reader, { onlyOwn: false, page: 1, pageSize: 20 })).items.map((s) => s.id)).toEqual([publicShelf]);
    expect((await w.getShelf.execute(reader, publicShelf)).id).toBe(publicShelf);
    expect((await errorOf(w.getShelf.execute(reader, privateShelf))).code).toBe('shelf_not_found');
    expect(await errorOf(w.createShelf.execute(reader, { name: 'Mine' }))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
    for (const call of Object.values(callsOn(reader, publicShelf)).slice(2)) {
      expect((await errorOf(call())).code).toBe('permission_denied');
    }
  });

  it('refuses an actor without shelf permissions before looking anything up', async () => {
    expect((await errorOf(w.listShelves.execute(nobody, { onlyOwn: false, page: 1, pageSize: 20 }))).code).toBe('permission_denied');
    for (const call of [...Object.values(callsOn(nobody, privateShelf)), ...Object.values(callsOn(nobody, 'missing'))]) {
      expect(await errorOf(call())).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
    }
    expect((await errorOf(w.createShelf.execute(nobody, { name: 'x' }))).code).toBe('permission_denied');
    expect((await errorOf(w.updateShelf.execute(nobody, { shelfId: 'missing', name: 'x' }))).code).toBe('permission_denied');
  });

  it('needs books:read as well as shelves:read to list the books of a shelf', async () => {
    const shelvesOnly = { ...reader, id: 'sam', username: 'sam', permissions: ['shelves:read' as const] };
    expect((await w.getShelf.execute(shelvesOnly, publicShelf)).bookIds).toEqual([bookId]);
    const error = await errorOf(w.listShelfBooks.execute(shelvesOnly, { shelfId: publicShelf, page: 1, pageSize: 20 }));
    expect(error).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
  });

  it("lets an admin read and change anyone's private shelf", async () => {
    expect((await w.getShelf.execute(admin, privateShelf)).owner.id).toBe('alice');
    const renamed = await w.updateShelf.execute(admin, { shelfId: privateShelf, name: 'Renamed by admin', isPublic: true });
    expect(renamed).toMatchObject({ name: 'Renamed by admin', isPublic: true, owner: { id: 'alice' } });
    await w.removeBookFromShelf.execute(admin, { shelfId: privateShelf, bookId });
    await w.addBookToShelf.execute(admin, { shelfId: privateShelf, bookId });
    await w.deleteShelf.execute(admin, privateShelf);
    expect(await w.store.shelves.findById(privateShelf)).toBeNull();
  });

  it('hides a shelf from others as soon as it is made private', async () => {
    await w.updateShelf.execute(alice, { shelfId: publicShelf, isPublic: false });
    expect((await errorOf(w.getShelf.execute(bob, publicShelf))).code).toBe('shelf_not_found');
    expect((await w.listShelves.execute(bob, { onlyOwn: false, page: 1, pageSize: 20 })).total).toBe(0);
  });
});
