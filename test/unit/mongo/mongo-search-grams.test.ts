import { describe, expect, it } from 'vitest';
import { bookSearchText, SEARCH_SEPARATOR } from '../../../src/domain/book.js';
import { queryGrams, searchGrams } from '../../../src/domain/book-search-grams.js';

/** A seeded generator, so every run draws the same texts. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

const ALPHABET = ['a', 'b', 'é', ' ', '-', 'ß', '😀', 'z'];

describe('search grams (what the Mongo books_search_tokens index holds)', () => {
  it('stores each three-character run of each field once, never one spanning two fields', () => {
    const text = bookSearchText({ title: 'Dune', authors: ['Frank'], tags: [], series: null });
    expect(searchGrams(text).sort()).toEqual(['dun', 'fra', 'ank', 'ran', 'une'].sort());
    expect(searchGrams(text).some((g) => g.includes(SEARCH_SEPARATOR))).toBe(false);
  });

  it('counts characters by code point, so an emoji is one character', () => {
    expect(searchGrams('a😀b')).toEqual(['a😀b']);
  });

  it('cannot answer a query shorter than three characters or holding the field separator', () => {
    expect(queryGrams('ab')).toBeNull();
    expect(queryGrams(`abc${SEARCH_SEPARATOR}def`)).toBeNull();
    expect(queryGrams('abcd')).toEqual(['abc', 'bcd']);
  });

  it('never loses a match: every substring of a text has all its grams among the text\'s grams (2,000 seeded cases)', () => {
    const random = seeded(14);
    const pick = () => ALPHABET[Math.floor(random() * ALPHABET.length)] ?? 'a';
    for (let n = 0; n < 2_000; n++) {
      const chars = Array.from({ length: 3 + Math.floor(random() * 12) }, pick);
      const start = Math.floor(random() * (chars.length - 2));
      const query = chars.slice(start, start + 3 + Math.floor(random() * (chars.length - start - 2))).join('');
      const stored = new Set(searchGrams(chars.join('')));
      for (const gram of queryGrams(query) ?? []) expect(stored.has(gram)).toBe(true);
    }
  });
});
