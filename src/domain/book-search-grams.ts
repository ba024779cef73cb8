import { SEARCH_SEPARATOR } from './book.js';

/** Length of the grams a long query is narrowed by; a query this long or longer needs all of its grams. */
export const SEARCH_GRAM_LENGTH = 3;

/** What `searchGrams` stores: 1 held the three-character runs only, 2 holds every run of one to three characters. */
export const SEARCH_GRAMS_VERSION = 2;

/**
 * Every distinct run of one, two and three characters (by code point) inside one field of a search
 * text from `bookSearchText`; a run never spans two fields. A text holds a query of three characters
 * or more as a substring only if it holds every gram of the query, so those grams narrow a search
 * that a substring test then settles; a shorter query is itself one of the runs exactly when the
 * text holds it.
 */
export function searchGrams(searchText: string): string[] {
  const grams = new Set<string>();
  for (const field of searchText.split(SEARCH_SEPARATOR)) {
    const chars = Array.from(field);
    for (let i = 0; i < chars.length; i++) {
      for (let n = 1; n <= SEARCH_GRAM_LENGTH && i + n <= chars.length; n++) grams.add(chars.slice(i, i + n).join(''));
    }
  }
  return [...grams];
}

/** The three-character grams a lower-cased query needs, or null when they cannot answer it (too short, or spanning fields). */
export function queryGrams(lowerCasedQuery: string): string[] | null {
  if (lowerCasedQuery.includes(SEARCH_SEPARATOR) || Array.from(lowerCasedQuery).length < SEARCH_GRAM_LENGTH) return null;
  return searchGrams(lowerCasedQuery).filter((gram) => Array.from(gram).length === SEARCH_GRAM_LENGTH);
}

/**
 * The one stored run a lower-cased query of one or two characters is (a text holds the query exactly
 * when its grams hold this run), or null when the query is longer, empty or holds the field separator.
 */
export function shortQueryGram(lowerCasedQuery: string): string | null {
  const length = Array.from(lowerCasedQuery).length;
  if (lowerCasedQuery.includes(SEARCH_SEPARATOR) || length === 0 || length >= SEARCH_GRAM_LENGTH) return null;
  return lowerCasedQuery;
}
