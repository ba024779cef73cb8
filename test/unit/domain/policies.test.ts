import { describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/domain/actor.js';
import { permissionsOf, type RoleName } from '../../../src/domain/permissions.js';
import {
  canCreateShelf,
  canDeleteBook,
  canEditBook,
  canEditShelf,
  canManageUsers,
  canReadBooks,
  canReadShelves,
  canSeeShelf,
  canUploadBook,
} from '../../../src/domain/policies.js';
import { aBook, anActor, aShelf } from '../../support/kit.js';

const actor = (id: string, role: RoleName) => anActor(role, id);
const admin = actor('root', 'admin');
const owner = actor('alice', 'user');
const other = actor('bob', 'user');
const reader = actor('rita', 'reader');
const readerOwner = actor('alice', 'reader');

const book = aBook({ owner: { id: 'alice', username: 'alice' } });
const privateShelf = aShelf({ owner: { id: 'alice', username: 'alice' }, isPublic: false });
const publicShelf = aShelf({ owner: { id: 'alice', username: 'alice' }, isPublic: true });

describe('permissions of the built-in roles', () => {
  it.each([
    [['admin'], ['admin:*']],
    [['user'], ['books:read', 'books:write', 'books:delete', 'shelves:read', 'shelves:write']],
    [['reader'], ['books:read', 'shelves:read']],
    [['reader', 'user'], ['books:read', 'books:write', 'books:delete', 'shelves:read', 'shelves:write']],
  ] as [RoleName[], string[]][])('%j grants %j', (roles, expected) => {
    expect(permissionsOf(roles)).toEqual(expected);
  });
});

// actor x action tables: [actor name, actor, expected]
describe.each([
  ['readBooks', (a: Actor) => canReadBooks(a), { admin: true, owner: true, other: true, reader: true, readerOwner: true }],
  ['uploadBook', (a: Actor) => canUploadBook(a), { admin: true, owner: true, other: true, reader: false, readerOwner: false }],
  ['editBook', (a: Actor) => canEditBook(a, book), { admin: true, owner: true, other: false, reader: false, readerOwner: false }],
  ['deleteBook', (a: Actor) => canDeleteBook(a, book), { admin: true, owner: true, other: false, reader: false, readerOwner: false }],
  ['readShelves', (a: Actor) => canReadShelves(a), { admin: true, owner: true, other: true, reader: true, readerOwner: true }],
  ['seePrivateShelf', (a: Actor) => canSeeShelf(a, privateShelf), { admin: true, owner: true, other: false, reader: false, readerOwner: true }],
  ['seePublicShelf', (a: Actor) => canSeeShelf(a, publicShelf), { admin: true, owner: true, other: true, reader: true, readerOwner: true }],
  ['createShelf', (a: Actor) => canCreateShelf(a), { admin: true, owner: true, other: true, reader: false, readerOwner: false }],
  ['editPrivateShelf', (a: Actor) => canEditShelf(a, privateShelf), { admin: true, owner: true, other: false, reader: false, readerOwner: false }],
  ['editPublicShelf', (a: Actor) => canEditShelf(a, publicShelf), { admin: true, owner: true, other: false, reader: false, readerOwner: false }],
  ['manageUsers', (a: Actor) => canManageUsers(a), { admin: true, owner: false, other: false, reader: false, readerOwner: false }],
])('policy %s', (_action, policy, expected) => {
  const actors = { admin, owner, other, reader, readerOwner };
  it.each(Object.entries(expected))('%s -> %s', (name, allowed) => {
    expect(policy(actors[name as keyof typeof actors])).toBe(allowed);
  });
});
