import type { Book } from '../../src/domain/book.js';
import type { Shelf } from '../../src/domain/shelf.js';
import type { User } from '../../src/domain/user.js';

/** Builders for test data: deterministic, unique per call, every field overridable. */

let sequence = 0;

/** The next value of the shared counter; ids, names, hashes and dates all derive from it. */
export function nextSequence(): number {
  sequence += 1;
  return sequence;
}

/** A fixed instant plus `n` seconds, so later builds are later in time. */
export function instant(n: number): Date {
  return new Date(Date.UTC(2026, 0, 1) + n * 1000);
}

/** A 64-hex-digit string unique to n (not a real digest of anything). */
export function fakeSha256(n: number): string {
  return n.toString(16).padStart(64, '0');
}

export function aUser(overrides: Partial<User> = {}): User {
  const n = nextSequence();
  return {
    id: `user-${n}`,
    username: `user${n}`,
    email: `user${n}@example.test`,
    passwordHash: `$2b$04$hash-of-user-${n}`,
    roles: ['user'],
    authProvider: 'local',
    oidc: null,
    disabled: false,
    tokenVersion: 0,
    createdAt: instant(n),
    updatedAt: instant(n),
    ...overrides,
  };
}

export function aBook(overrides: Partial<Book> = {}): Book {
  const n = nextSequence();
  return {
    id: `book-${n}`,
    title: `Book ${n}`,
    authors: [`Author ${n}`],
    description: null,
    publisher: null,
    language: 'en',
    published: null,
    isbn: null,
    tags: [],
    series: null,
    seriesIndex: null,
    format: 'epub',
    fileName: `book-${n}.epub`,
    fileSize: 1000 + n,
    sha256: fakeSha256(n),
    coverMediaType: null,
    owner: { id: 'owner-1', username: 'owner1' },
    createdAt: instant(n),
    updatedAt: instant(n),
    ...overrides,
  };
}

/** bookCount follows bookIds unless given. */
export function aShelf(overrides: Partial<Shelf> = {}): Shelf {
  const n = nextSequence();
  const bookIds = overrides.bookIds ?? [];
  return {
    id: `shelf-${n}`,
    name: `Shelf ${n}`,
    description: null,
    isPublic: false,
    owner: { id: 'owner-1', username: 'owner1' },
    bookCount: bookIds.length,
    createdAt: instant(n),
    updatedAt: instant(n),
    ...overrides,
    bookIds,
  };
}
