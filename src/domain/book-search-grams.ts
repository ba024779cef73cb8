import { SEARCH_SEPARATOR } from './book.js';

/** Length of the grams an index stores; a shorter query cannot be answered from them. */
export const SEARCH_GRAM_LENGTH = 3;

/**
 * Every distinct three-character run (by code point) inside one field of a search text from
 * `bookSearchText`; a run never spans two fields. A text holds a query as a substring only if it
 * holds every gram of the query, so the grams narrow a search that a substring test then settles.
 */
export function searchGrams(searchText: string): string[] {
  const grams = new Set<string>();
  for (const field of searchText.split(SEARCH_SEPARATOR)) {
    const chars = Array.from(field);
    for (let i = 0; i + SEARCH_GRAM_LENGTH <= chars.length; i++) grams.add(chars.slice(i, i + SEARCH_GRAM_LENGTH).join(''));
  }
  return [...grams];
}

/** The grams a lower-cased query needs, or null when they cannot answer it (too short, or spanning fields). */
export function queryGrams(lowerCasedQuery: string): string[] | null {
  if (lowerCasedQuery.includes(SEARCH_SEPARATOR) || Array.from(lowerCasedQuery).length < SEARCH_GRAM_LENGTH) return null;
  return searchGrams(lowerCasedQuery);
}
