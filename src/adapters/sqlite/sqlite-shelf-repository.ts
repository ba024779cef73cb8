import type { Database, Transaction } from 'better-sqlite3';
import { bookNotFound, shelfNameTaken, shelfNotFound } from '../../domain/error-catalogue.js';
import type { PageRequest } from '../../domain/page.js';
import { offsetOf } from '../../domain/page.js';
import type { Shelf } from '../../domain/shelf.js';
import { SHELF_BOOKS_MAX, shelfFull, shelfNameKey } from '../../domain/shelf-rules.js';
import type { ShelfDetailsPatch, ShelfRepository, Slice } from '../../application/ports.js';
import { fromMillis, isForeignKeyViolation, isUniqueViolation, toMillis } from './sqlite-database.js';

interface ShelfRow {
  id: string;
  name: string;
  description: string | null;
  is_public: number;
  owner_id: string;
  owner_username: string;
  book_count: number;
  created_at: number;
  updated_at: number;
}

const COLUMNS = 'id, name, description, is_public, owner_id, owner_username, book_count, created_at, updated_at';
const VISIBLE = 'owner_id = @owner OR (@onlyOwn = 0 AND is_public = 1)';

/**
 * ShelfRepository on SQLite. Membership lives in `shelf_books` ordered by an indexed position;
 * `shelves.book_count` is kept by triggers, so counts and appends do not grow with the shelf.
 */
export class SqliteShelfRepository implements ShelfRepository {
  private readonly statements: ReturnType<typeof prepare>;
  private readonly createTx: Transaction<(shelf: Shelf) => void>;
  private readonly replaceTx: Transaction<(shelfId: string, bookIds: readonly string[], at: Date) => void>;
  private readonly addTx: Transaction<(shelfId: string, bookId: string, at: Date) => boolean>;
  private readonly removeTx: Transaction<(shelfId: string, bookId: string, at: Date) => boolean>;
  private readonly removeEverywhereTx: Transaction<(bookId: string, at: Date) => void>;

  /** `maxBooks`: the most books one shelf holds (SHELF_BOOKS_MAX; smaller in tests). */
  constructor(db: Database, maxBooks = SHELF_BOOKS_MAX) {
    const s = (this.statements = prepare(db));
    const insertAll = (shelfId: string, bookIds: readonly string[]): void => {
      [...new Set(bookIds)].forEach((bookId, i) => existingBook(bookId, () => s.insertMember.run(shelfId, bookId, i + 1)));
    };
    const touch = (shelfId: string, at: Date): void => {
      if (s.touch.run(toMillis(at), shelfId).changes === 0) throw shelfNotFound(shelfId);
    };
    this.createTx = db.transaction((shelf: Shelf) => {
      s.insertShelf.run({ ...detailParams(shelf), owner_id: shelf.owner.id, owner_username: shelf.owner.username,
        created_at: toMillis(shelf.createdAt) });
      insertAll(shelf.id, shelf.bookIds);
    });
    this.replaceTx = db.transaction((shelfId: string, bookIds: readonly string[], at: Date) => {
      touch(shelfId, at);
      s.clearMembers.run(shelfId);
      insertAll(shelfId, bookIds);
    });
    this.addTx = db.transaction((shelfId: string, bookId: string, at: Date) => {
      if (s.shelfExists.get(shelfId) === undefined) throw shelfNotFound(shelfId);
      if (s.isMember.get(shelfId, bookId) !== undefined) return false;
      if ((s.bookCount.get(shelfId) as number) >= maxBooks) throw shelfFull(maxBooks);
      existingBook(bookId, () => s.appendMember.run(shelfId, bookId, shelfId));
      touch(shelfId, at);
      return true;
    });
    this.removeTx = db.transaction((shelfId: string, bookId: string, at: Date) => {
      if (s.removeMember.run(shelfId, bookId).changes === 0) return false;
      touch(shelfId, at);
      return true;
    });
    this.removeEverywhereTx = db.transaction((bookId: string, at: Date) => {
      s.touchHolding.run(toMillis(at), bookId);
      s.removeEverywhere.run(bookId);
    });
  }

  async create(shelf: Shelf): Promise<void> {
    guard(() => this.createTx.immediate(shelf));
  }

  /** One UPDATE that sets only the given columns, so a concurrent change of another detail survives. */
  async updateDetails(id: string, patch: ShelfDetailsPatch, updatedAt: Date): Promise<boolean> {
    const params = {
      id,
      set_name: patch.name === undefined ? 0 : 1,
      name: patch.name ?? null,
      name_key: patch.name === undefined ? null : shelfNameKey(patch.name),
      set_description: patch.description === undefined ? 0 : 1,
      description: patch.description ?? null,
      set_public: patch.isPublic === undefined ? 0 : 1,
      is_public: patch.isPublic ? 1 : 0,
      updated_at: toMillis(updatedAt),
    };
    return guard(() => this.statements.updateDetails.run(params).changes > 0);
  }

  async replaceBooks(shelfId: string, bookIds: readonly string[], updatedAt: Date): Promise<void> {
    guard(() => this.replaceTx.immediate(shelfId, bookIds, updatedAt));
  }

  async addBook(shelfId: string, bookId: string, updatedAt: Date): Promise<boolean> {
    return guard(() => this.addTx.immediate(shelfId, bookId, updatedAt));
  }

  async removeBook(shelfId: string, bookId: string, updatedAt: Date): Promise<boolean> {
    return this.removeTx.immediate(shelfId, bookId, updatedAt);
  }

  async removeBookEverywhere(bookId: string, updatedAt: Date): Promise<void> {
    this.removeEverywhereTx.immediate(bookId, updatedAt);
  }

  async delete(id: string): Promise<boolean> {
    return this.statements.remove.run(id).changes > 0;
  }

  async findById(id: string): Promise<Shelf | null> {
    const row = this.statements.byId.get(id) as ShelfRow | undefined;
    return row ? this.toShelf(row) : null;
  }

  async listVisible(ownerId: string, onlyOwn: boolean, page: PageRequest): Promise<Slice<Shelf>> {
    const params = { owner: ownerId, onlyOwn: onlyOwn ? 1 : 0 };
    const rows = this.statements.visible.all({ ...params, limit: page.pageSize, offset: offsetOf(page) }) as ShelfRow[];
    return { items: rows.map((row) => this.toShelf(row)), total: this.statements.visibleCount.get(params) as number };
  }

  async bookIdsPage(shelfId: string, page: PageRequest): Promise<Slice<string>> {
    const total = (this.statements.bookCount.get(shelfId) as number | undefined) ?? 0;
    const items = this.statements.memberPage.all(shelfId, page.pageSize, offsetOf(page)) as string[];
    return { items, total };
  }

  private toShelf(row: ShelfRow): Shelf {
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      isPublic: row.is_public === 1,
      owner: { id: row.owner_id, username: row.owner_username },
      bookIds: this.statements.members.all(row.id) as string[],
      bookCount: row.book_count,
      createdAt: fromMillis(row.created_at),
      updatedAt: fromMillis(row.updated_at),
    };
  }
}

function prepare(db: Database) {
  return {
    insertShelf: db.prepare(`INSERT INTO shelves (id, name, name_key, description, is_public, owner_id, owner_username,
      created_at, updated_at) VALUES (@id, @name, @name_key, @description, @is_public, @owner_id, @owner_username,
      @created_at, @updated_at)`),
    updateDetails: db.prepare(`UPDATE shelves SET
      name = CASE WHEN @set_name THEN @name ELSE name END, name_key = CASE WHEN @set_name THEN @name_key ELSE name_key END,
      description = CASE WHEN @set_description THEN @description ELSE description END,
      is_public = CASE WHEN @set_public THEN @is_public ELSE is_public END, updated_at = @updated_at WHERE id = @id`),
    touch: db.prepare('UPDATE shelves SET updated_at = ? WHERE id = ?'),
    touchHolding: db.prepare('UPDATE shelves SET updated_at = ? WHERE id IN (SELECT shelf_id FROM shelf_books WHERE book_id = ?)'),
    shelfExists: db.prepare('SELECT 1 FROM shelves WHERE id = ?').pluck(),
    isMember: db.prepare('SELECT 1 FROM shelf_books WHERE shelf_id = ? AND book_id = ?').pluck(),
    insertMember: db.prepare('INSERT INTO shelf_books (shelf_id, book_id, position) VALUES (?, ?, ?)'),
    appendMember: db.prepare(`INSERT INTO shelf_books (shelf_id, book_id, position)
      VALUES (?, ?, (SELECT coalesce(max(position), 0) + 1 FROM shelf_books WHERE shelf_id = ?))`),
    clearMembers: db.prepare('DELETE FROM shelf_books WHERE shelf_id = ?'),
    removeMember: db.prepare('DELETE FROM shelf_books WHERE shelf_id = ? AND book_id = ?'),
    removeEverywhere: db.prepare('DELETE FROM shelf_books WHERE book_id = ?'),
    remove: db.prepare('DELETE FROM shelves WHERE id = ?'),
    byId: db.prepare(`SELECT ${COLUMNS} FROM shelves WHERE id = ?`),
    members: db.prepare('SELECT book_id FROM shelf_books WHERE shelf_id = ? ORDER BY position').pluck(),
    memberPage: db.prepare('SELECT book_id FROM shelf_books WHERE shelf_id = ? ORDER BY position LIMIT ? OFFSET ?').pluck(),
    bookCount: db.prepare('SELECT book_count FROM shelves WHERE id = ?').pluck(),
    visible: db.prepare(`SELECT ${COLUMNS} FROM shelves WHERE ${VISIBLE} ORDER BY name_key, id LIMIT @limit OFFSET @offset`),
    visibleCount: db.prepare(`SELECT count(*) FROM shelves WHERE ${VISIBLE}`).pluck(),
  };
}

function detailParams(shelf: Shelf): Record<string, unknown> {
  return {
    id: shelf.id,
    name: shelf.name,
    name_key: shelfNameKey(shelf.name),
    description: shelf.description,
    is_public: shelf.isPublic ? 1 : 0,
    updated_at: toMillis(shelf.updatedAt),
  };
}

/** Maps the shelf-name constraint to the domain error every ShelfRepository throws. */
function guard<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (isUniqueViolation(error) && error.message.includes('shelves.name_key')) throw shelfNameTaken();
    throw error;
  }
}

/** Runs a membership insert; a foreign-key failure means the book does not exist. */
function existingBook(bookId: string, insert: () => unknown): void {
  try {
    insert();
  } catch (error) {
    if (isForeignKeyViolation(error)) throw bookNotFound(bookId);
    throw error;
  }
}
