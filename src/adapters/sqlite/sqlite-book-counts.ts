import type { Database, Statement } from 'better-sqlite3';
import { SEARCH_SEPARATOR } from '../../domain/book.js';

/**
 * What `book_counts` counts, each row the number of books with that key: every book ('all', key ''), by
 * format, by tag key, by author name key, and by gram: a run of one or two characters inside one field
 * of the search text (what a `q` of one or two characters matches).
 */
export type CountKind = 'all' | 'format' | 'tag' | 'author' | 'gram';

const upsert = (kind: string, key: string, change: string) => `INSERT INTO book_counts (kind, key, books) VALUES ('${kind}', ${key}, ${change})
    ON CONFLICT (kind, key) DO UPDATE SET books = books + excluded.books`;

/** Triggers counting the books of each key of a side table (book_tags, book_authors), a book once however often it lists the key, and the counts so far. */
const sideTableCounts = (table: string, column: string, kind: CountKind) => `
CREATE TRIGGER ${table}_count_insert AFTER INSERT ON ${table}
WHEN NOT EXISTS (SELECT 1 FROM ${table} WHERE ${column} = new.${column} AND book_id = new.book_id AND position <> new.position) BEGIN
  ${upsert(kind, `new.${column}`, '1')};
END;
CREATE TRIGGER ${table}_count_delete AFTER DELETE ON ${table}
WHEN NOT EXISTS (SELECT 1 FROM ${table} WHERE ${column} = old.${column} AND book_id = old.book_id) BEGIN
  ${upsert(kind, `old.${column}`, '-1')};
END;
INSERT INTO book_counts (kind, key, books) SELECT '${kind}', ${column}, count(DISTINCT book_id) FROM ${table} GROUP BY ${column};`;

/**
 * SQLite migration 11: the table, the triggers that keep every count but the grams exact on every
 * write of any connection (in the writer's transaction, cascades included), and those counts for the
 * books already stored. A tag or author counts a book once however often the book lists it. The gram
 * counts are kept by SqliteBookCounts in the repository's writes (SQLite's text functions stop at a NUL
 * character, which a search text may hold) and filled by backfillGramCounts.
 */
export const BOOK_COUNTS = `
CREATE TABLE book_counts (
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  books INTEGER NOT NULL,
  PRIMARY KEY (kind, key)
) WITHOUT ROWID;

CREATE TRIGGER books_count_insert AFTER INSERT ON books BEGIN
  ${upsert('all', "''", '1')};
  ${upsert('format', 'new.format', '1')};
END;
CREATE TRIGGER books_count_delete AFTER DELETE ON books BEGIN
  ${upsert('all', "''", '-1')};
  ${upsert('format', 'old.format', '-1')};
END;
CREATE TRIGGER books_count_format AFTER UPDATE OF format ON books WHEN old.format IS NOT new.format BEGIN
  ${upsert('format', 'old.format', '-1')};
  ${upsert('format', 'new.format', '1')};
END;
${sideTableCounts('book_tags', 'tag_key', 'tag')}
${sideTableCounts('book_authors', 'name_key', 'author')}

INSERT INTO book_counts (kind, key, books) SELECT 'all', '', count(*) FROM books;
INSERT INTO book_counts (kind, key, books) SELECT 'format', format, count(*) FROM books GROUP BY format;
`;

/**
 * Calls `visit` for every run of one or two characters (code points) inside one field of a search text
 * (a run never spans SEARCH_SEPARATOR), repeats included: the runs a `q` of one or two characters can be.
 */
function eachShortGram(searchText: string, visit: (gram: string) => void): void {
  let previous = '';
  for (const char of searchText) {
    if (char === SEARCH_SEPARATOR) {
      previous = '';
      continue;
    }
    visit(char);
    if (previous !== '') visit(previous + char);
    previous = char;
  }
}

/** The distinct grams of a stored search text. */
export function shortGrams(searchText: string): Set<string> {
  const grams = new Set<string>();
  eachShortGram(searchText, (gram) => grams.add(gram));
  return grams;
}

/**
 * Counts the grams of every stored book (migration 11, and any later step that rewrites search texts
 * in SQL: it must call this after deleting the 'gram' rows). One pass over the books, holding one
 * number per distinct gram, in the migration's transaction (a few seconds for 250,000 books).
 */
export function backfillGramCounts(db: Database): void {
  const counts = new Map<string, { books: number; lastBook: number }>();
  let book = 0;
  for (const text of db.prepare('SELECT search_text FROM books').pluck().iterate() as IterableIterator<string>) {
    book += 1;
    eachShortGram(text, (gram) => {
      const count = counts.get(gram);
      if (!count) counts.set(gram, { books: 1, lastBook: book });
      else if (count.lastBook !== book) {
        count.books += 1;
        count.lastBook = book;
      }
    });
  }
  const insert = db.prepare("INSERT INTO book_counts (kind, key, books) VALUES ('gram', ?, ?)");
  for (const [gram, count] of counts) insert.run(gram, count.books);
}

/**
 * Reads the counts, and keeps the gram counts as the repository writes: call it inside the write's
 * transaction with the search text as stored (read back from SQLite, so it is the text the counts and
 * `instr` see).
 */
export class SqliteBookCounts {
  private readonly read: Statement;
  private readonly change: Statement;

  constructor(db: Database) {
    this.read = db.prepare('SELECT books FROM book_counts WHERE kind = ? AND key = ?').pluck();
    this.change = db.prepare(upsert('gram', '?', '?'));
  }

  /** The number of books with this key (0 when none ever had it). */
  get(kind: CountKind, key = ''): number {
    return (this.read.get(kind, key) as number | undefined) ?? 0;
  }

  /** A book's search text went from `before` to `after` (null: the book did not exist, or no longer does). */
  searchTextChanged(before: string | null, after: string | null): void {
    if (before === after) return;
    const old = before === null ? new Set<string>() : shortGrams(before);
    const now = after === null ? new Set<string>() : shortGrams(after);
    for (const gram of old) if (!now.has(gram)) this.change.run(gram, -1);
    for (const gram of now) if (!old.has(gram)) this.change.run(gram, 1);
  }
}
