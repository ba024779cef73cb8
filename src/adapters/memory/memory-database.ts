import type { ApiKey } from '../../domain/api-key.js';
import type { Book } from '../../domain/book.js';
import type { Change } from '../../domain/change-feed.js';
import type { KoboDevice } from '../../domain/kobo-device.js';
import type { KoreaderDigests } from '../../domain/koreader-digest.js';
import type { SyncDocument } from '../../domain/kosync.js';
import type { ThrottleCounter } from '../../domain/login-throttle.js';
import type { StoredProgress } from '../../domain/reading-progress.js';
import type { Shelf } from '../../domain/shelf.js';
import type { User } from '../../domain/user.js';

/** A shelf as the in-memory store keeps it: membership is an insertion-ordered set. */
export interface ShelfRecord {
  readonly shelf: Omit<Shelf, 'bookIds' | 'bookCount'>;
  books: Set<string>;
}

/** The shared state behind the in-memory repositories (what tables are to SQLite). */
export class MemoryDatabase {
  readonly users = new Map<string, User>();
  readonly revocations = new Map<string, Date>();
  readonly throttles = new Map<string, ThrottleCounter>();
  readonly books = new Map<string, Book>();
  readonly shelves = new Map<string, ShelfRecord>();
  readonly oneTimeCodes = new Map<string, { value: string; expiresAt: number }>();
  readonly apiKeys = new Map<string, ApiKey>();
  /** Keyed by progressKey(userId, bookId). */
  readonly progress = new Map<string, StoredProgress>();
  /** KOReader digests by book id. */
  readonly digests = new Map<string, KoreaderDigests>();
  /** KOReader positions of unmatched documents, keyed by progressKey(userId, document). */
  readonly syncDocuments = new Map<string, SyncDocument>();
  /** Addresses accounts signed in from, keyed by progressKey(userId, address); times in ms. */
  readonly knownAddresses = new Map<string, { readonly userId: string; readonly address: string; readonly lastSignInAt: number }>();
  readonly koboDevices = new Map<string, KoboDevice>();
  /** Books hidden from a device, keyed by progressKey(deviceId, bookId). */
  readonly koboArchived = new Set<string>();
  /** The change feed, keyed by `${kind}\u0000${entityId}`; `lastSeq` is the highest sequence number ever given. */
  readonly changes = new Map<string, Change>();
  lastSeq = 0;
  closed = false;
}

/** The key of one user's progress on one book. */
export const progressKey = (userId: string, bookId: string): string => `${userId}\u0000${bookId}`;

/** Deep copy, so callers never share objects with the store. */
export function copy<T>(value: T): T {
  return structuredClone(value);
}

/** Binary (code point) string order, as SQLite's BINARY collation compares UTF-8. */
export function compareText(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = codePointRank(a.charCodeAt(i));
    const y = codePointRank(b.charCodeAt(i));
    if (x !== y) return x - y;
  }
  return a.length - b.length;
}

/** Moves surrogates above U+E000..U+FFFF so UTF-16 units compare in code point order. */
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  return unit >= 0xe000 ? unit - 0x800 : unit;
}
