import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, runMigrations } from '../../../src/adapters/sqlite/migrations.js';
import { bookParams } from '../../../src/adapters/sqlite/sqlite-book-rows.js';
import { loadSqliteDriver } from '../../../src/adapters/sqlite/sqlite-driver.js';
import { createSqliteStore, type SqliteStore } from '../../../src/adapters/sqlite/sqlite-store.js';
import type { Book } from '../../../src/domain/book.js';
import { aBook, instant } from '../../support/builders.js';

/** Every count `book_counts` should hold, recomputed from the stored books (grams: runs of 1–2 characters within a field). */
function recount(db: Database): Record<string, number> {
  const counts: Record<string, number> = {};
  const add = (key: string) => (counts[key] = (counts[key] ?? 0) + 1);
  const books = db.prepare('SELECT id, format, search_text AS text FROM books').all() as { id: string; format: string; text: string }[];
  for (const book of books) {
    add('all ');
    add(`format ${book.format}`);
    const grams = new Set<string>();
    for (const field of book.text.split('\u001f')) {
      const chars = Array.from(field);
      chars.forEach((c, i) => grams.add(c).add(i + 1 < chars.length ? c + chars[i + 1] : c));
    }
    grams.forEach((gram) => add(`gram ${gram}`));
  }
  for (const row of db.prepare('SELECT DISTINCT book_id, tag_key FROM book_tags').all() as { tag_key: string }[]) add(`tag ${row.tag_key}`);
  for (const row of db.prepare('SELECT DISTINCT book_id, name_key FROM book_authors').all() as { name_key: string }[]) add(`author ${row.name_key}`);
  return counts;
}

/** The non-zero rows of `book_counts` (a count that fell to zero may stay as a row). */
function stored(db: Database): Record<string, number> {
  const rows = db.prepare('SELECT kind, key, books FROM book_counts WHERE books <> 0').all() as { kind: string; key: string; books: number }[];
  return Object.fromEntries(rows.map((r) => [`${r.kind} ${r.key}`, r.books]));
}

const sample = (i: number): Book => aBook({
  id: `c-${i}`,
  title: `Kite ${['Harbour', 'Ämber', 'Ǆungle 😀'][i % 3]} ${i}`,
  authors: i % 4 === 0 ? [] : [`Writer ${i % 3}`, ...(i % 5 === 0 ? [`WRITER ${i % 3}`] : [])],
  tags: i % 2 === 0 ? ['History', 'history'] : [`t\u0000${i % 4}`],
  series: i % 3 === 0 ? 'Ki' : null,
  format: (['epub', 'pdf', 'txt'] as const)[i % 3],
  createdAt: instant(i),
});

describe('SQLite book counts (migration 11)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-book-counts-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts the books a release before migration 11 stored, at the next start', async () => {
    const Driver = loadSqliteDriver();
    const old = new Driver(join(dir, 'stacks.db'));
    runMigrations(old, MIGRATIONS.filter((m) => m.version < 11));
    const insertBook = old.prepare(`INSERT INTO books (id, title, title_key, author_key, authors, tags, description, publisher, language,
      published, isbn, series, series_index, format, file_name, file_size, sha256, cover_media_type, owner_id, owner_username, search_text,
      created_at, updated_at) VALUES (@id, @title, @title_key, @author_key, @authors, @tags, @description, @publisher, @language, @published,
      @isbn, @series, @series_index, @format, @file_name, @file_size, @sha256, @cover_media_type, @owner_id, @owner_username, @search_text,
      @created_at, @updated_at)`);
    const side = (table: string, key: string) => old.prepare(`INSERT INTO ${table} (book_id, position, ${key === 'tag_key' ? 'tag' : 'name'}, ${key}) VALUES (?, ?, ?, ?)`);
    const [tag, author] = [side('book_tags', 'tag_key'), side('book_authors', 'name_key')];
    for (let i = 0; i < 30; i++) {
      const book = sample(i);
      insertBook.run(bookParams(book));
      book.tags.forEach((t, p) => tag.run(book.id, p, t, t.toLowerCase()));
      book.authors.forEach((a, p) => author.run(book.id, p, a, a.toLowerCase()));
    }
    old.close();

    const store = createSqliteStore(dir);
    try {
      expect(stored(store.db)).toEqual(recount(store.db));
      expect(stored(store.db)).toMatchObject({ 'all ': 30, 'tag history': 15, 'author writer 1': 7, 'gram 😀': 10, 'gram ǆ': 10, 'gram \u0000': 15 });
      expect((await store.books.search({ q: 'ǅ', sort: { field: 'title', descending: false }, page: 1, pageSize: 5 })).total).toBe(10);
    } finally {
      await store.close();
    }
  });

  it('stays exact when two connections interleave 100 inserts, edits and deletes and a format changes, and a refused write changes nothing', async () => {
    const [a, b]: [SqliteStore, SqliteStore] = [createSqliteStore(dir), createSqliteStore(dir)];
    try {
      for (let i = 0; i < 40; i++) await a.books.create(sample(i));
      expect(stored(a.db)).toEqual(recount(a.db));
      const writes = Array.from({ length: 100 }, (_, i) => {
        const [mine, theirs] = i % 2 ? [a, b] as const : [b, a] as const;
        if (i < 40 && i % 3 === 0) return () => mine.books.delete(`c-${i}`);
        if (i < 40) return () => theirs.books.updateMetadata(`c-${i}`, { title: `Edited ${i} ha`, tags: i % 4 ? ['History'] : [], authors: ['Writer 9'] }, instant(500));
        return () => mine.books.create(sample(i));
      });
      await Promise.all(writes.map((write) => write()));
      expect(stored(b.db)).toEqual(recount(b.db));
      a.db.prepare("UPDATE books SET format = 'mobi' WHERE id IN ('c-41', 'c-42')").run(); // no write path does this yet; the trigger does
      expect(stored(b.db)).toEqual(recount(b.db));
      const before = stored(a.db);
      await expect(b.books.create(aBook({ id: 'dup', title: 'zq', sha256: (await a.books.findById('c-41'))!.sha256 }))).rejects.toMatchObject({ code: 'duplicate_book' });
      expect(stored(a.db)).toEqual(before);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
