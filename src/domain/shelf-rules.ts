import { invalidInput } from './error-catalogue.js';
import type { FieldError, ValidationError } from './errors.js';
import { SHELF_NAME_MAX } from './shelf.js';
import { isCleanName, isCleanText, NAME_CONTROL_MESSAGE, TEXT_CONTROL_MESSAGE } from './text.js';

/** A shelf holds at most this many books (a PATCH sends the whole list). */
export const SHELF_BOOKS_MAX = 10_000;

/** What a store is built with besides its location: the most books one shelf holds (SHELF_BOOKS_MAX; smaller in tests). */
export interface StoreLimits {
  readonly shelfBooksMax?: number;
}
export const SHELF_DESCRIPTION_MAX = 2000;

/** Field errors listed in one response, at most; the detail gives the full count. */
const ERRORS_LISTED = 100;

const characters = (text: string): number => [...text].length;

/** Default-ignorable code points: zero-width spaces and joiners, soft hyphen, word joiner, BOM, bidi controls, variation selectors. */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * Full case folding (CaseFolding.txt statuses C and F): lower, upper, lower again maps every code point
 * as the table does (ß and ẞ to ss, ﬁ to fi, ς to σ), except dotless ı, which the table keeps apart from i.
 */
const caseFold = (text: string): string => text.replace(/[^\u0131]+/gu, (run) => run.toLowerCase().toUpperCase().toLowerCase());

/**
 * The key a shelf name is unique by among its owner's shelves: invisible characters removed, NFC,
 * full case folding, trimmed. "Café" in NFC and NFD, "Straße" and "STRASSE" share one key.
 */
export function shelfNameKey(name: string): string {
  return caseFold(name.replace(INVISIBLE, '').normalize('NFC')).normalize('NFC').trim();
}

/** The trimmed name; throws ValidationError unless it is 1..100 characters long and shows at least one. */
export function normalizeShelfName(raw: string): string {
  const name = raw.trim();
  const length = characters(name);
  if (length === 0 || length > SHELF_NAME_MAX) {
    const message = `must be 1-${SHELF_NAME_MAX} characters after trimming (got ${length})`;
    throw invalidInput('The shelf name is invalid.', [{ field: 'name', message }]);
  }
  if (shelfNameKey(name) === '') {
    throw invalidInput('The shelf name is invalid.', [{ field: 'name', message: 'must hold a visible character' }]);
  }
  if (!isCleanName(name)) throw invalidInput('The shelf name is invalid.', [{ field: 'name', message: NAME_CONTROL_MESSAGE }]);
  return name;
}

/** The trimmed description; blank becomes null. */
export function normalizeShelfDescription(raw: string | null): string | null {
  const description = raw?.trim() ?? '';
  if (characters(description) > SHELF_DESCRIPTION_MAX) {
    const message = `must be at most ${SHELF_DESCRIPTION_MAX} characters`;
    throw invalidInput('The shelf description is invalid.', [{ field: 'description', message }]);
  }
  if (!isCleanText(description)) throw invalidInput('The shelf description is invalid.', [{ field: 'description', message: TEXT_CONTROL_MESSAGE }]);
  return description === '' ? null : description;
}

/** Indexes of ids that already appeared earlier in the list. */
export function repeatedIdIndexes(ids: readonly string[]): number[] {
  const seen = new Set<string>();
  const repeats: number[] = [];
  ids.forEach((id, index) => {
    if (seen.has(id)) repeats.push(index);
    else seen.add(id);
  });
  return repeats;
}

/** A shelf already holding SHELF_BOOKS_MAX books takes no other (checked by each store as it adds the book). */
export const shelfFull = (most = SHELF_BOOKS_MAX): ValidationError =>
  invalidInput('Too many books for one shelf.', [{ field: 'book_id', message: `the shelf already holds ${most} books, the most one shelf holds` }]);

/** Throws ValidationError when the list is too long or names a book twice. */
export function assertShelfBookList(ids: readonly string[]): void {
  if (ids.length > SHELF_BOOKS_MAX) {
    const message = `must hold at most ${SHELF_BOOKS_MAX} ids (got ${ids.length})`;
    throw invalidInput('Too many books for one shelf.', [{ field: 'book_ids', message }]);
  }
  const repeats = repeatedIdIndexes(ids);
  if (repeats.length > 0) {
    throw bookListError(`${repeats.length} book id(s) repeat an earlier entry.`, repeats, ids, (id) => `repeats '${id}'`);
  }
}

/** ValidationError for ids that name no book, given the ids that do exist. */
export function unknownBookIdsError(ids: readonly string[], existing: ReadonlySet<string>): ValidationError | null {
  const missing = ids.flatMap((id, index) => (existing.has(id) ? [] : [index]));
  if (missing.length === 0) return null;
  return bookListError(`${missing.length} book id(s) name no book.`, missing, ids, (id) => `no book with id '${id}'`);
}

function bookListError(detail: string, indexes: readonly number[], ids: readonly string[], say: (id: string) => string) {
  const errors: FieldError[] = indexes
    .slice(0, ERRORS_LISTED)
    .map((index) => ({ field: `book_ids.${index}`, message: say(ids[index] as string) }));
  return invalidInput(detail, errors);
}

/** A stored shelf's name and the key it was stored under (by an earlier rule, perhaps). */
export interface StoredShelfName {
  readonly id: string;
  readonly ownerId: string;
  readonly name: string;
  readonly nameKey: string;
}

/**
 * What changes when stored shelves, given oldest first, are keyed by the current rule: their new key,
 * and for a shelf whose name now collides with an older one of its owner's, a new name with " (2)", " (3)"...
 */
export function rekeyedShelfNames(shelves: readonly StoredShelfName[]): Map<string, { name: string; nameKey: string }> {
  const taken = new Set<string>();
  const slot = (ownerId: string, key: string) => `${ownerId}\u0000${key}`;
  const changes = new Map<string, { name: string; nameKey: string }>();
  for (const shelf of shelves) {
    let name = shelf.name;
    for (let n = 2; taken.has(slot(shelf.ownerId, shelfNameKey(name))); n++) {
      const suffix = ` (${n})`;
      name = [...shelf.name].slice(0, SHELF_NAME_MAX - suffix.length).join('').trimEnd() + suffix;
    }
    const nameKey = shelfNameKey(name);
    taken.add(slot(shelf.ownerId, nameKey));
    if (name !== shelf.name || nameKey !== shelf.nameKey) changes.set(shelf.id, { name, nameKey });
  }
  return changes;
}
