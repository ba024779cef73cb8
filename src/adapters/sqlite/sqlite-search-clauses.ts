import type { BookQuery, BookSort } from '../../domain/book.js';
import { shortQueryGram } from '../../domain/book-search-grams.js';
import type { CountKind } from './sqlite-book-counts.js';

/**
 * The FTS5 trigram index answers substrings of at least this many characters; shorter ones, and any
 * holding a NUL (which ends an FTS5 query string), are found with instr, which compares every byte.
 */
const TRIGRAM = 3;

/** How many books a condition's index lists, as SqliteBookSearch estimates it before choosing a plan. */
export type Estimate =
  | { readonly by: 'count'; readonly kind: CountKind; readonly key: string }
  /** This share of the library (a substring of three or more characters: no cheap count). */
  | { readonly by: 'share'; readonly share: number }
  /** Few (a reader's own reading records): this index goes first. */
  | { readonly by: 'few' };

/** One condition of a search, in the forms the plans need. */
export interface Clause {
  /** Selects the matches through an index that lists only them (tag, author, format, FTS5, reading records); null: none does. */
  readonly drive: string | null;
  /** Checks one book (never used by SQLite to pick an index): while walking a sort index, and beside another condition's `drive`. */
  readonly check: string;
  /** `check` reads the book's row, not just a sort index entry (which holds the sort keys, id and seq). */
  readonly readsRow: boolean;
  /** How many books `drive` lists. */
  readonly estimate: Estimate;
  /** When it is the only condition, the total comes from this statement instead of count(*). */
  readonly countAlone?: string;
}

const few: Estimate = { by: 'few' };
/** A substring query of three or more characters is assumed to match one book in eight. */
const SUBSTRING_SHARE = 1 / 8;

/** The query's conditions; fills `params` with their values. */
export function clausesOf(query: BookQuery, params: Record<string, unknown>): Clause[] {
  const clauses: Clause[] = [];
  if (query.q !== undefined && query.q !== '') clauses.push(textClause(query.q.toLowerCase(), params));
  if (query.author !== undefined) {
    params.author = query.author.toLowerCase();
    clauses.push(sideTable('book_authors', 'name_key', '@author', { by: 'count', kind: 'author', key: params.author as string }));
  }
  if (query.tag !== undefined) {
    params.tag = query.tag.toLowerCase();
    clauses.push(sideTable('book_tags', 'tag_key', '@tag', { by: 'count', kind: 'tag', key: params.tag as string }));
  }
  if (query.format !== undefined) {
    params.format = query.format;
    clauses.push({ drive: 'format = @format', check: '+format = @format', readsRow: true, estimate: { by: 'count', kind: 'format', key: query.format } });
  }
  if (query.status === 'unread') {
    const read = "SELECT 1 FROM reading_progress WHERE user_id = @reader AND book_id = books.id AND status <> 'unread' LIMIT 1";
    clauses.push({ drive: null, check: `NOT EXISTS (${read})`, readsRow: false, estimate: few });
  } else if (query.status !== undefined) {
    params.status = query.status;
    clauses.push({
      drive: 'books.id IN (SELECT book_id FROM reading_progress WHERE user_id = @reader AND status = @status)',
      check: 'EXISTS (SELECT 1 FROM reading_progress WHERE user_id = @reader AND book_id = books.id AND status = @status LIMIT 1)',
      readsRow: false,
      estimate: few,
    });
  }
  return clauses;
}

/** `q`: the FTS5 trigram index lists the books holding three or more characters; `book_counts` counts one or two. */
function textClause(q: string, params: Record<string, unknown>): Clause {
  params.needle = q;
  const check = 'instr(search_text, @needle) > 0';
  if ([...q].length >= TRIGRAM && !q.includes('\0')) {
    params.match = `"${q.replaceAll('"', '""')}"`;
    return {
      drive: 'books.seq IN (SELECT rowid FROM book_search WHERE book_search MATCH @match)',
      check,
      readsRow: true,
      estimate: { by: 'share', share: SUBSTRING_SHARE },
      countAlone: 'SELECT count(*) FROM book_search WHERE book_search MATCH @match',
    };
  }
  const gram = shortQueryGram(q);
  return { drive: null, check, readsRow: true, estimate: gram === null ? { by: 'share', share: 1 } : { by: 'count', kind: 'gram', key: gram } };
}

/**
 * An author or tag condition: the side table's index lists the matches; a walk probes it per book.
 * The probe's LIMIT 1 keeps SQLite (3.51+) from turning the EXISTS into a join, which with OFFSET
 * counted a book listing the tag twice as two rows and so repeated it on the next page.
 */
function sideTable(table: string, column: string, value: string, estimate: Estimate): Clause {
  return {
    drive: `books.id IN (SELECT book_id FROM ${table} WHERE ${column} = ${value})`,
    check: `EXISTS (SELECT 1 FROM ${table} WHERE ${column} = ${value} AND book_id = books.id LIMIT 1)`,
    readsRow: false,
    estimate,
  };
}

/** Key then id, both in the requested direction; a missing author or date sorts last either way. */
export function orderBy(sort: BookSort): string {
  const dir = sort.descending ? 'DESC' : 'ASC';
  switch (sort.field) {
    case 'read':
      throw new Error('The read sort is SqliteReadOrder\'s.');
    case 'title':
      return `title_key ${dir}, books.id ${dir}`;
    case 'author':
      return `author_key IS NULL, author_key ${dir}, books.id ${dir}`;
    case 'added':
      return `created_at ${dir}, books.id ${dir}`;
    case 'published':
      return `published IS NULL, published ${dir}, books.id ${dir}`;
  }
}

/** The index (migration 1) whose order is orderBy(sort), read forwards or backwards. */
export function sortIndex(sort: BookSort): string {
  switch (sort.field) {
    case 'read':
      throw new Error('The read sort is SqliteReadOrder\'s.');
    case 'title':
      return 'books_title';
    case 'author':
      return sort.descending ? 'books_author_desc' : 'books_author_asc';
    case 'added':
      return 'books_added';
    case 'published':
      return sort.descending ? 'books_published_desc' : 'books_published_asc';
  }
}
