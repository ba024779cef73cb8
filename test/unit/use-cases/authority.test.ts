import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MetadataReader } from '../../../src/application/ports.js';
import type { Actor } from '../../../src/domain/actor.js';
import type { Book } from '../../../src/domain/book.js';
import type { Shelf } from '../../../src/domain/shelf.js';
import type { User } from '../../../src/domain/user.js';
import { aBookWorld, errorOf, sourceOf, type BookWorld } from '../../support/kit.js';

/**
 * Authority is judged when a write commits. Each write below is made with an actor authenticated
 * before a change of its account (as a request whose headers came before the change and whose body
 * came after): it must answer as if it came after the change (401, or 403 when only permissions shrank)
 * and leave the store exactly as the change left it.
 */
const text: MetadataReader = { read: async () => ({ format: 'txt', metadata: { title: 'Held' }, cover: null }) };

interface Scene {
  readonly w: BookWorld;
  readonly writer: User;
  readonly other: User;
  readonly book: Book;
  readonly shelf: Shelf;
  readonly keyId: string;
}

interface Write {
  readonly name: string;
  /** Made as an admin (roles ['admin']), so a demotion to `user` is what shrinks it. */
  readonly admin?: boolean;
  /** Allowed through an API key too. */
  readonly byKey?: boolean;
  /** Needs no permission (an account with no role may do it): a shrinking role does not concern it. */
  readonly anyRole?: boolean;
  run(s: Scene, actor: Actor): Promise<unknown>;
}

const PASSWORD = 'old password 1';

const WRITES: readonly Write[] = [
  { name: 'create a shelf', byKey: true, run: (s, a) => s.w.createShelf.execute(a, { name: 'Held shelf', bookIds: [s.book.id] }) },
  { name: 'rename a shelf', byKey: true, run: (s, a) => s.w.updateShelf.execute(a, { shelfId: s.shelf.id, name: 'Renamed', isPublic: true }) },
  { name: 'reorder a shelf', byKey: true, run: (s, a) => s.w.updateShelf.execute(a, { shelfId: s.shelf.id, bookIds: [] }) },
  { name: 'delete a shelf', byKey: true, run: (s, a) => s.w.deleteShelf.execute(a, s.shelf.id) },
  { name: 'add a book to a shelf', byKey: true, run: (s, a) => s.w.addBookToShelf.execute(a, { shelfId: s.shelf.id, bookId: s.book.id }) },
  { name: 'remove a book from a shelf', byKey: true, run: (s, a) => s.w.removeBookFromShelf.execute(a, { shelfId: s.shelf.id, bookId: 'on-shelf' }) },
  { name: 'edit a book', byKey: true, run: (s, a) => s.w.updateBook.execute(a, { id: s.book.id, changes: { title: 'Changed' } }) },
  { name: 'delete a book', byKey: true, run: (s, a) => s.w.deleteBook.execute(a, s.book.id) },
  { name: 'upload a book', byKey: true, run: (s, a) => s.w.uploadBook.execute(a, sourceOf(Buffer.from('held upload\n'), 'Held.txt')) },
  { name: 'record progress', byKey: true, run: (s, a) => s.w.updateProgress.execute(a, { bookId: s.book.id, update: { percentage: 0.5 } }) },
  { name: 'forget progress', byKey: true, run: (s, a) => s.w.deleteProgress.execute(a, s.book.id) },
  {
    name: 'push a KOReader position of an unknown document', byKey: true,
    run: (s, a) => s.w.pushSyncProgress.execute(a, { document: 'f'.repeat(32), progress: '/p[1]', percentage: 0.2, device: 'Kobo', deviceId: 'k1' }),
  },
  { name: 'create an API key', run: (s, a) => s.w.createApiKey.execute(a, { ownerId: a.id, name: 'held key', permissions: ['books:read'] }) },
  { name: 'revoke an API key', anyRole: true, run: (s, a) => s.w.revokeApiKey.execute(a, { ownerId: a.id, keyId: s.keyId }) },
  { name: 'change the password', anyRole: true, run: (s, a) => s.w.changePassword.execute(a, { currentPassword: PASSWORD, newPassword: 'new password 2' }) },
  { name: "change another account's roles", admin: true, run: (s, a) => s.w.updateUser.execute(a, { id: s.other.id, roles: ['admin'] }) },
  { name: 're-enable and promote itself', admin: true, run: (s, a) => s.w.updateUser.execute(a, { id: a.id, roles: ['admin'], disabled: false }) },
  { name: 'delete another account', admin: true, run: (s, a) => s.w.deleteUser.execute(a, s.other.id) },
  { name: "reset another account's password", admin: true, run: (s, a) => s.w.resetPassword.execute(a, { userId: s.other.id, newPassword: 'reset password 3' }) },
  { name: 'create an account', admin: true, run: (s, a) => s.w.createUser.execute(a, { username: 'heldnew', email: 'heldnew@example.test', password: 'a new password', roles: ['user'] }) },
  { name: "revoke another account's key", admin: true, run: (s, a) => s.w.revokeApiKey.execute(a, { ownerId: s.other.id, keyId: 'other-key' }) },
];

interface Change {
  readonly name: string;
  /** What the held write must answer afterwards. */
  readonly code: 'invalid_token' | 'permission_denied';
  apply(s: Scene, actor: Actor, write: Write): Promise<unknown>;
}

const SESSION_CHANGES: readonly Change[] = [
  { name: 'the token expired', code: 'invalid_token', apply: (s) => Promise.resolve(s.w.clock.advance((3600 + 31) * 1000)) },
  { name: 'the token was revoked (logout)', code: 'invalid_token', apply: (s, a) => s.w.store.revocations.revoke((a.credential as { jti: string }).jti, new Date(8.64e15)) },
  { name: 'the password was changed', code: 'invalid_token', apply: (s) => s.w.store.users.setPassword(s.writer.id, 'changed-hash', s.w.clock.now()) },
  { name: 'the account was disabled', code: 'invalid_token', apply: (s) => s.w.store.users.updateAccess(s.writer.id, { disabled: true }, s.w.clock.now()) },
  { name: 'the account was deleted', code: 'invalid_token', apply: (s) => s.w.store.users.delete(s.writer.id) },
  {
    name: 'its roles shrank', code: 'permission_denied',
    apply: (s, _a, write) => s.w.store.users.updateAccess(s.writer.id, { roles: write.admin ? ['user'] : [] }, s.w.clock.now()),
  },
];

const KEY_CHANGES: readonly Change[] = [
  { name: 'the key was revoked', code: 'invalid_token', apply: (s, a) => s.w.store.apiKeys.revoke(s.writer.id, (a.credential as { keyId: string }).keyId) },
  { name: 'the owner changed the password', code: 'invalid_token', apply: (s) => s.w.store.users.setPassword(s.writer.id, 'changed-hash', s.w.clock.now()) },
  { name: "the owner's roles shrank", code: 'permission_denied', apply: (s) => s.w.store.users.updateAccess(s.writer.id, { roles: [] }, s.w.clock.now()) },
];

let w: BookWorld;
beforeEach(async () => {
  w = await aBookWorld({ metadata: text });
});
afterEach(() => w.cleanup());

async function scene(admin: boolean): Promise<{ s: Scene; session: Actor; key: Actor }> {
  const { user: writer } = await w.storeUser({ username: 'writer', email: 'writer@example.test', roles: admin ? ['admin'] : ['user'], passwordHash: await w.hasher.hash(PASSWORD) });
  const { user: other, actor: otherActor } = await w.storeUser({ username: 'other', email: 'other@example.test', roles: ['user'] });
  // A second admin, so that demoting or deleting the writer never meets the last-admin rule.
  await w.storeUser({ username: 'root', email: 'root@example.test', roles: ['admin'] });
  // A bearer session as a request carries it: a real token (the world's tokens last an hour).
  const { actor: session } = await w.authenticate.execute(w.tokens.issue(writer).token);
  const book = await w.storeBook({ owner: { id: writer.id, username: writer.username } });
  await w.storeBook({ id: 'on-shelf', sha256: 'e'.repeat(64), owner: { id: writer.id, username: writer.username } });
  const shelf = await w.createShelf.execute(session, { name: 'Mine', bookIds: ['on-shelf'] });
  await w.updateProgress.execute(session, { bookId: book.id, update: { percentage: 0.25 } });
  const spare = await w.createApiKey.execute(session, { ownerId: writer.id, name: 'spare' });
  const { secret } = await w.createApiKey.execute(session, { ownerId: writer.id, name: 'writer key' });
  await w.store.apiKeys.create({ ...(await w.createApiKey.execute(otherActor, { ownerId: other.id, name: 'o' })).key, id: 'other-key', lookup: 'other-lookup' });
  const { actor: key } = await w.authenticateApiKey.execute({ secret }, '192.0.2.9');
  return { s: { w, writer, other, book, shelf, keyId: spare.key.id }, session, key };
}

const asJson = (_key: string, value: unknown): unknown =>
  value instanceof Map ? [...value.entries()] : value instanceof Set ? [...value] : value;

/** Everything the store holds that a write could change (not the throttle counters or revocations), as JSON. */
async function snapshot(): Promise<string> {
  const { db } = w.store;
  const maps = { users: db.users, books: db.books, shelves: db.shelves, apiKeys: db.apiKeys, progress: db.progress, digests: db.digests, syncDocuments: db.syncDocuments };
  return JSON.stringify({ ...maps, files: (await w.files()).books }, asJson);
}

async function heldWrite(write: Write, change: Change, through: 'session' | 'key'): Promise<{ code: unknown; changedAfter: boolean }> {
  const { s, session, key } = await scene(write.admin === true);
  const actor = through === 'key' ? key : session;
  await change.apply(s, actor, write);
  const before = await snapshot();
  const error = await errorOf(write.run(s, actor)).catch((e: unknown) => ({ code: `wrote: ${String(e)}` }));
  return { code: (error as { code?: unknown }).code, changedAfter: (await snapshot()) !== before };
}

describe('Authority: every write confirms its authority just before it commits', () => {
  for (const write of WRITES) {
    for (const change of SESSION_CHANGES) {
      if (write.anyRole && change.code === 'permission_denied') continue;
      it(`${write.name}, with a session held while ${change.name}: ${change.code}, nothing written`, async () => {
        expect(await heldWrite(write, change, 'session')).toEqual({ code: change.code, changedAfter: false });
      });
    }
    if (!write.byKey) continue;
    for (const change of KEY_CHANGES) {
      it(`${write.name}, with an API key held while ${change.name}: ${change.code}, nothing written`, async () => {
        expect(await heldWrite(write, change, 'key')).toEqual({ code: change.code, changedAfter: false });
      });
    }
  }

  for (const write of WRITES) {
    it(`${write.name} still writes when nothing changed (the scene is a fair one)`, async () => {
      const { s, session } = await scene(write.admin === true);
      const before = await snapshot();
      await write.run(s, session);
      expect(await snapshot()).not.toBe(before);
    });
  }

  it('stores a key with the token version of the session that made it, so a later password change revokes it', async () => {
    const { s, session } = await scene(false);
    const { key } = await w.createApiKey.execute(session, { ownerId: s.writer.id, name: 'fresh' });
    expect(key.ownerTokenVersion).toBe(s.writer.tokenVersion);
    await w.store.users.setPassword(s.writer.id, 'changed-hash', w.clock.now());
    expect(await errorOf(w.createApiKey.execute(session, { ownerId: s.writer.id, name: 'after' }))).toMatchObject({ code: 'invalid_token' });
    expect((await w.store.apiKeys.listByOwner(s.writer.id, { page: 1, pageSize: 100 })).items.map((k) => k.name)).not.toContain('after');
  });
});
