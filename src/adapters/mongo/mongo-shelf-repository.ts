import type { ClientSession, Collection, Db } from 'mongodb';
import type { PageRequest } from '../../domain/page.js';
import { offsetOf } from '../../domain/page.js';
import type { Shelf } from '../../domain/shelf.js';
import { SHELF_BOOKS_MAX, shelfFull, shelfNameKey } from '../../domain/shelf-rules.js';
import type { ShelfDetailsPatch, ShelfRepository, Slice } from '../../application/ports.js';
import { shelfNotFound } from '../../domain/error-catalogue.js';
import type { ClaimableBook, MemberDocument } from './mongo-shelf-members.js';
import { claimBooks, lastPosition, MEMBER_ORDER, memberId, withShelfConflictsMapped } from './mongo-shelf-members.js';
import { inTransaction, QUERY_MAX_TIME_MS } from './mongo-transactions.js';

interface ShelfDocument {
  _id: string;
  name: string;
  nameKey: string;
  description: string | null;
  isPublic: boolean;
  ownerId: string;
  ownerUsername: string;
  createdAt: Date;
  updatedAt: Date;
  /** The position the next appended book gets at least; taken with one atomic `$inc`. */
  nextPosition: number;
}

const limited = { maxTimeMS: QUERY_MAX_TIME_MS };

/**
 * ShelfRepository on MongoDB. Membership lives in `shelf_books` (one document per book, ordered by
 * a position unique per shelf). Every write that touches several documents runs in one transaction
 * that also writes the shelf (and the books it adds), so concurrent writers conflict and retry
 * instead of mixing lists. Each query names, beside it, the index it relies on.
 */
export class MongoShelfRepository implements ShelfRepository {
  private readonly shelves: Collection<ShelfDocument>;
  private readonly members: Collection<MemberDocument>;
  private readonly books: Collection<ClaimableBook>;

  /** `maxBooks`: the most books one shelf holds (SHELF_BOOKS_MAX; smaller in tests). */
  constructor(private readonly db: Db, private readonly maxBooks = SHELF_BOOKS_MAX) {
    this.shelves = db.collection<ShelfDocument>('shelves');
    this.members = db.collection<MemberDocument>('shelf_books');
    this.books = db.collection<ClaimableBook>('books');
  }

  async create(shelf: Shelf): Promise<void> {
    const bookIds = [...new Set(shelf.bookIds.map(String))];
    const { id, name, description, isPublic, owner, createdAt, updatedAt } = shelf;
    await withShelfConflictsMapped(() => inTransaction(this.db, async (session) => {
      await claimBooks(this.books, bookIds, session);
      await this.shelves.insertOne({ _id: id, name, nameKey: shelfNameKey(name), description, isPublic, ownerId: owner.id,
        ownerUsername: owner.username, createdAt: new Date(createdAt.getTime()), updatedAt: new Date(updatedAt.getTime()),
        nextPosition: bookIds.length + 1 }, { session });
      await this.insertMembers(id, bookIds, session);
    }));
  }

  /** One `$set` of only the given fields, so a concurrent change of another detail survives. */
  async updateDetails(id: string, patch: ShelfDetailsPatch, updatedAt: Date): Promise<boolean> {
    const $set: Partial<ShelfDocument> = { updatedAt: new Date(updatedAt.getTime()) };
    if (patch.name !== undefined) Object.assign($set, { name: patch.name, nameKey: shelfNameKey(patch.name) });
    if (patch.description !== undefined) $set.description = patch.description;
    if (patch.isPublic !== undefined) $set.isPublic = patch.isPublic;
    const written = await withShelfConflictsMapped(() => this.shelves.updateOne({ _id: String(id) }, { $set })); // index: _id_
    return written.matchedCount > 0;
  }

  async replaceBooks(shelfId: string, bookIds: readonly string[], updatedAt: Date): Promise<void> {
    const unique = [...new Set(bookIds.map(String))];
    await withShelfConflictsMapped(() => inTransaction(this.db, async (session) => {
      await this.existing(shelfId, session);
      await claimBooks(this.books, unique, session);
      await this.shelves.updateOne({ _id: String(shelfId) }, // index: _id_
        { $set: { updatedAt: new Date(updatedAt.getTime()), nextPosition: unique.length + 1 } }, { session });
      await this.members.deleteMany({ shelfId: String(shelfId) }, { session }); // index: shelf_books_slot
      await this.insertMembers(String(shelfId), unique, session);
    }));
  }

  /**
   * Refuses the book past SHELF_BOOKS_MAX by counting the members in the transaction: two adds at the
   * cap both write the shelf document (its nextPosition), so on a replica set one conflicts, is
   * retried and sees the other's book.
   */
  async addBook(shelfId: string, bookId: string, updatedAt: Date): Promise<boolean> {
    return withShelfConflictsMapped(() => inTransaction(this.db, async (session) => {
      await this.existing(shelfId, session);
      const there = await this.members.findOne({ _id: memberId(shelfId, bookId) }, { session, projection: { _id: 1 }, ...limited }); // index: _id_
      if (there) return false;
      if (await this.members.countDocuments({ shelfId: String(shelfId) }, { session, ...limited }) >= this.maxBooks) throw shelfFull(this.maxBooks); // index: shelf_books_slot
      await claimBooks(this.books, [String(bookId)], session);
      const taken = await this.shelves.findOneAndUpdate({ _id: String(shelfId) }, // index: _id_
        { $inc: { nextPosition: 1 }, $set: { updatedAt: new Date(updatedAt.getTime()) } }, { session, returnDocument: 'before' });
      if (!taken) throw shelfNotFound(shelfId);
      const position = Math.max(taken.nextPosition, (await lastPosition(this.members, String(shelfId), session)) + 1);
      await this.members.insertOne({ _id: memberId(shelfId, bookId), shelfId: String(shelfId), bookId: String(bookId), position }, { session });
      return true;
    }));
  }

  async removeBook(shelfId: string, bookId: string, updatedAt: Date): Promise<boolean> {
    return inTransaction(this.db, async (session) => {
      if ((await this.members.deleteOne({ _id: memberId(shelfId, bookId) }, { session })).deletedCount === 0) return false; // index: _id_
      await this.touch([shelfId], updatedAt, session);
      return true;
    });
  }

  async removeBookEverywhere(bookId: string, updatedAt: Date): Promise<void> {
    await inTransaction(this.db, async (session) => {
      const holding = await this.members.find({ bookId: String(bookId) }, { session, projection: { shelfId: 1 }, ...limited }).toArray(); // index: shelf_books_book
      await this.touch(holding.map((m) => m.shelfId), updatedAt, session);
      await this.members.deleteMany({ bookId: String(bookId) }, { session }); // index: shelf_books_book
    });
  }

  async delete(id: string): Promise<boolean> {
    return inTransaction(this.db, async (session) => {
      const deleted = (await this.shelves.deleteOne({ _id: String(id) }, { session })).deletedCount > 0; // index: _id_
      if (deleted) await this.members.deleteMany({ shelfId: String(id) }, { session }); // index: shelf_books_slot
      return deleted;
    });
  }

  async findById(id: string): Promise<Shelf | null> {
    const d = await this.shelves.findOne({ _id: String(id) }, limited); // index: _id_
    return d ? toShelf(d, (await this.membersOf([d._id])).get(d._id) ?? []) : null;
  }

  /**
   * Index: shelves_owner_name_id, or it and shelves_public_name_id merged in (nameKey, _id) order; the
   * members of every shelf on the page in one more query (not one per shelf), each shelf holding at
   * most SHELF_BOOKS_MAX.
   */
  async listVisible(ownerId: string, onlyOwn: boolean, page: PageRequest): Promise<Slice<Shelf>> {
    const filter = onlyOwn ? { ownerId: String(ownerId) } : { $or: [{ ownerId: String(ownerId) }, { isPublic: true }] };
    const [documents, total] = await Promise.all([
      this.shelves.find(filter, limited).sort({ nameKey: 1, _id: 1 }).skip(offsetOf(page)).limit(page.pageSize).toArray(),
      this.shelves.countDocuments(filter, limited),
    ]);
    const members = await this.membersOf(documents.map((d) => d._id));
    return { items: documents.map((d) => toShelf(d, members.get(d._id) ?? [])), total };
  }

  async bookIdsPage(shelfId: string, page: PageRequest): Promise<Slice<string>> {
    const filter = { shelfId: String(shelfId) };
    const [members, total] = await Promise.all([
      this.members.find(filter, { projection: { bookId: 1 }, ...limited }).sort(MEMBER_ORDER) // index: shelf_books_slot
        .skip(offsetOf(page)).limit(page.pageSize).toArray(),
      this.members.countDocuments(filter, limited), // index: shelf_books_slot
    ]);
    return { items: members.map((m) => m.bookId), total };
  }

  /** The book ids of each of these shelves in shelf order, in one query (index shelf_books_slot, each shelf's range in position order). */
  private async membersOf(shelfIds: readonly string[]): Promise<Map<string, string[]>> {
    const byShelf = new Map<string, string[]>(shelfIds.map((id) => [id, []]));
    if (shelfIds.length === 0) return byShelf;
    const filter = shelfIds.length === 1 ? { shelfId: shelfIds[0] as string } : { shelfId: { $in: [...shelfIds] } };
    const members = this.members.find(filter, { projection: { _id: 0, shelfId: 1, bookId: 1 }, batchSize: 10_000, ...limited })
      .sort({ shelfId: 1, ...MEMBER_ORDER });
    for await (const member of members) byShelf.get(member.shelfId)?.push(member.bookId);
    return byShelf;
  }

  private async insertMembers(shelfId: string, bookIds: readonly string[], session: ClientSession): Promise<void> {
    if (bookIds.length === 0) return;
    await this.members.insertMany(bookIds.map((bookId, i) => ({ _id: memberId(shelfId, bookId), shelfId, bookId, position: i + 1 })), { session });
  }

  private async touch(shelfIds: readonly string[], at: Date, session: ClientSession): Promise<void> {
    if (shelfIds.length === 0) return;
    await this.shelves.updateMany({ _id: { $in: [...new Set(shelfIds.map(String))] } }, // index: _id_
      { $set: { updatedAt: new Date(at.getTime()) } }, { session });
  }

  private async existing(shelfId: string, session: ClientSession): Promise<void> {
    const found = await this.shelves.findOne({ _id: String(shelfId) }, { session, projection: { _id: 1 }, ...limited }); // index: _id_
    if (!found) throw shelfNotFound(shelfId);
  }
}

function toShelf(d: ShelfDocument, bookIds: string[]): Shelf {
  return { id: d._id, name: d.name, description: d.description, isPublic: d.isPublic, owner: { id: d.ownerId, username: d.ownerUsername },
    bookIds, bookCount: bookIds.length, createdAt: d.createdAt, updatedAt: d.updatedAt };
}
