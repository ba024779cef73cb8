import type { ClientSession, Collection } from 'mongodb';
import { bookNotFound, shelfNameTaken, storeUnavailable } from '../../domain/error-catalogue.js';
import { isDuplicateKeyOn, QUERY_MAX_TIME_MS } from './mongo-transactions.js';

/** One book on one shelf; `_id` is the (shelf, book) pair, so a book is on a shelf at most once. */
export interface MemberDocument {
  _id: string;
  shelfId: string;
  bookId: string;
  /** Unique per shelf (index shelf_books_slot); the order is (position, bookId). */
  position: number;
}

/** The fields of a book document a shelf transaction writes. */
export interface ClaimableBook {
  _id: string;
  shelvings?: number;
}

export const memberId = (shelfId: string, bookId: string) => JSON.stringify([shelfId, bookId]);

/** The order of a shelf's books: positions are unique per shelf (index shelf_books_slot). */
export const MEMBER_ORDER = { position: 1 } as const;

/**
 * Writes each book document inside the session (a counter), so a transaction that deletes one of
 * them conflicts with this one and one of the two is retried; throws book_not_found for the first
 * missing id, in the order given.
 */
export async function claimBooks(books: Collection<ClaimableBook>, bookIds: readonly string[], session: ClientSession): Promise<void> {
  if (bookIds.length === 0) return;
  const claimed = await books.updateMany({ _id: { $in: [...bookIds] } }, { $inc: { shelvings: 1 } }, { session }); // index: _id_
  if (claimed.matchedCount === bookIds.length) return;
  const found = await books.find({ _id: { $in: [...bookIds] } }, { session, projection: { _id: 1 }, maxTimeMS: QUERY_MAX_TIME_MS }).toArray(); // index: _id_
  const present = new Set(found.map((b) => b._id));
  throw bookNotFound(bookIds.find((id) => !present.has(id)) ?? bookIds[0] ?? '');
}

/** How often a write that met another writer's position on the same shelf starts again. */
export const SLOT_CLASH_ATTEMPTS = 5;

/**
 * Runs a shelf write, starting it again when it met a duplicate (shelf, position) — another writer
 * took the slot first, which only a server without transaction isolation lets through — and maps
 * a duplicate (owner, name) to shelf_name_taken. Past the attempts, answers store_unavailable.
 */
export async function withShelfConflictsMapped<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (isDuplicateKeyOn(error, ['ownerId', 'nameKey'])) throw shelfNameTaken();
      if (!isDuplicateKeyOn(error, ['shelfId', 'position'])) throw error;
      if (attempt >= SLOT_CLASH_ATTEMPTS) throw storeUnavailable();
    }
  }
}

/** The next free position on a shelf: past both the shelf's counter and its last member. */
export async function lastPosition(members: Collection<MemberDocument>, shelfId: string, session: ClientSession): Promise<number> {
  const last = await members.findOne({ shelfId }, { session, sort: { position: -1 }, projection: { position: 1 }, // index: shelf_books_slot
    maxTimeMS: QUERY_MAX_TIME_MS });
  return last?.position ?? 0;
}
