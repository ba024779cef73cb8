import type { Collection, Db } from 'mongodb';
import type { PageRequest } from '../../domain/page.js';
import { offsetOf } from '../../domain/page.js';
import type { Shelf } from '../../domain/shelf.js';
import { shelfNameKey } from '../../domain/shelf-rules.js';
import type { ShelfDetailsPatch, ShelfRepository, Slice } from '../../application/ports.js';
import { isDuplicateKey } from './mongo-database.js';
import { bookNotFound, shelfNameTaken, shelfNotFound } from '../../domain/error-catalogue.js';

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
  /** The position the next appended book gets; taken with one atomic `$inc`. */
  nextPosition: number;
}

/** One book on one shelf; `_id` is the (shelf, book) pair, so a book is on a shelf at most once. */
interface MemberDocument {
  _id: string;
  shelfId: string;
  bookId: string;
  position: number;
}

const memberId = (shelfId: string, bookId: string) => JSON.stringify([shelfId, bookId]);

/**
 * ShelfRepository on MongoDB. Membership lives in `shelf_books` (one document per book, ordered by
 * an indexed position), so adding a book writes one small document and never rewrites the shelf.
 */
export class MongoShelfRepository implements ShelfRepository {
  private readonly shelves: Collection<ShelfDocument>;
  private readonly members: Collection<MemberDocument>;
  private readonly books: Collection<{ _id: string }>;

  constructor(db: Db) {
    this.shelves = db.collection<ShelfDocument>('shelves');
    this.members = db.collection<MemberDocument>('shelf_books');
    this.books = db.collection<{ _id: string }>('books');
  }

  async create(shelf: Shelf): Promise<void> {
    const bookIds = [...new Set(shelf.bookIds.map(String))];
    await this.assertBooksExist(bookIds);
    const { id, name, description, isPublic, owner, createdAt, updatedAt } = shelf;
    await this.shelves.insertOne({ _id: id, name, nameKey: shelfNameKey(name), description, isPublic, ownerId: owner.id,
      ownerUsername: owner.username, createdAt: new Date(createdAt.getTime()), updatedAt: new Date(updatedAt.getTime()),
      nextPosition: bookIds.length + 1 }).catch((e: unknown) => Promise.reject(nameConflict(e, name)));
    await this.insertMembers(id, bookIds);
  }

  /** One `$set` of only the given fields, so a concurrent change of another detail survives. */
  async updateDetails(id: string, patch: ShelfDetailsPatch, updatedAt: Date): Promise<boolean> {
    const $set: Partial<ShelfDocument> = { updatedAt: new Date(updatedAt.getTime()) };
    if (patch.name !== undefined) Object.assign($set, { name: patch.name, nameKey: shelfNameKey(patch.name) });
    if (patch.description !== undefined) $set.description = patch.description;
    if (patch.isPublic !== undefined) $set.isPublic = patch.isPublic;
    const written = await this.shelves.updateOne({ _id: String(id) }, { $set })
      .catch((e: unknown) => Promise.reject(nameConflict(e, patch.name ?? '')));
    return written.matchedCount > 0;
  }

  async replaceBooks(shelfId: string, bookIds: readonly string[], updatedAt: Date): Promise<void> {
    const unique = [...new Set(bookIds.map(String))];
    await this.existing(shelfId);
    await this.assertBooksExist(unique);
    await this.members.deleteMany({ shelfId: String(shelfId) });
    await this.insertMembers(shelfId, unique);
    await this.shelves.updateOne({ _id: String(shelfId) }, { $set: { updatedAt: new Date(updatedAt.getTime()), nextPosition: unique.length + 1 } });
  }

  async addBook(shelfId: string, bookId: string, updatedAt: Date): Promise<boolean> {
    await this.existing(shelfId);
    if (await this.members.countDocuments({ _id: memberId(shelfId, bookId) }, { limit: 1 })) return false;
    await this.assertBooksExist([String(bookId)]);
    const taken = await this.shelves.findOneAndUpdate({ _id: String(shelfId) }, { $inc: { nextPosition: 1 } }, { returnDocument: 'before' });
    if (!taken) throw shelfNotFound(shelfId);
    try {
      await this.members.insertOne({ _id: memberId(shelfId, bookId), shelfId: String(shelfId), bookId: String(bookId), position: taken.nextPosition });
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
    await this.touch([shelfId], updatedAt);
    return true;
  }

  async removeBook(shelfId: string, bookId: string, updatedAt: Date): Promise<boolean> {
    if ((await this.members.deleteOne({ _id: memberId(shelfId, bookId) })).deletedCount === 0) return false;
    await this.touch([shelfId], updatedAt);
    return true;
  }

  async removeBookEverywhere(bookId: string, updatedAt: Date): Promise<void> {
    const holding = await this.members.find({ bookId: String(bookId) }, { projection: { shelfId: 1 } }).toArray();
    await this.touch(holding.map((m) => m.shelfId), updatedAt);
    await this.members.deleteMany({ bookId: String(bookId) });
  }

  async delete(id: string): Promise<boolean> {
    const deleted = (await this.shelves.deleteOne({ _id: String(id) })).deletedCount > 0;
    if (deleted) await this.members.deleteMany({ shelfId: String(id) });
    return deleted;
  }

  async findById(id: string): Promise<Shelf | null> {
    const d = await this.shelves.findOne({ _id: String(id) });
    return d ? this.toShelf(d) : null;
  }

  async listVisible(ownerId: string, onlyOwn: boolean, page: PageRequest): Promise<Slice<Shelf>> {
    const filter = onlyOwn ? { ownerId: String(ownerId) } : { $or: [{ ownerId: String(ownerId) }, { isPublic: true }] };
    const [documents, total] = await Promise.all([
      this.shelves.find(filter).sort({ nameKey: 1, _id: 1 }).skip(offsetOf(page)).limit(page.pageSize).toArray(),
      this.shelves.countDocuments(filter),
    ]);
    return { items: await Promise.all(documents.map((d) => this.toShelf(d))), total };
  }

  async bookIdsPage(shelfId: string, page: PageRequest): Promise<Slice<string>> {
    const filter = { shelfId: String(shelfId) };
    const [members, total] = await Promise.all([
      this.members.find(filter, { projection: { bookId: 1 } }).sort({ position: 1 }).skip(offsetOf(page)).limit(page.pageSize).toArray(),
      this.members.countDocuments(filter),
    ]);
    return { items: members.map((m) => m.bookId), total };
  }

  private async toShelf(d: ShelfDocument): Promise<Shelf> {
    const members = await this.members.find({ shelfId: d._id }, { projection: { bookId: 1 } }).sort({ position: 1 }).toArray();
    const bookIds = members.map((m) => m.bookId);
    return { id: d._id, name: d.name, description: d.description, isPublic: d.isPublic, owner: { id: d.ownerId, username: d.ownerUsername },
      bookIds, bookCount: bookIds.length, createdAt: d.createdAt, updatedAt: d.updatedAt };
  }

  private async insertMembers(shelfId: string, bookIds: readonly string[]): Promise<void> {
    if (bookIds.length === 0) return;
    await this.members.insertMany(bookIds.map((bookId, i) => ({ _id: memberId(shelfId, bookId), shelfId, bookId, position: i + 1 })));
  }

  private async touch(shelfIds: readonly string[], at: Date): Promise<void> {
    if (shelfIds.length === 0) return;
    await this.shelves.updateMany({ _id: { $in: [...new Set(shelfIds.map(String))] } }, { $set: { updatedAt: new Date(at.getTime()) } });
  }

  private async existing(shelfId: string): Promise<void> {
    if ((await this.shelves.countDocuments({ _id: String(shelfId) }, { limit: 1 })) === 0) throw shelfNotFound(shelfId);
  }

  private async assertBooksExist(bookIds: readonly string[]): Promise<void> {
    if (bookIds.length === 0) return;
    const found = new Set((await this.books.find({ _id: { $in: [...bookIds] } }, { projection: { _id: 1 } }).toArray()).map((b) => b._id));
    const missing = bookIds.find((id) => !found.has(id));
    if (missing !== undefined) throw bookNotFound(missing);
  }
}

function nameConflict(error: unknown, name: string): unknown {
  if (!isDuplicateKey(error, 'shelves_owner_name')) return error;
  return shelfNameTaken();
}
