import { describe, expect, it } from 'vitest';
import { bookSearchText, SEARCH_SEPARATOR } from '../../../src/domain/book.js';
import { queryGrams, searchGrams, shortQueryGram } from '../../../src/domain/book-search-grams.js';

/** A seeded generator, so every run draws the same texts. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

const ALPHABET = ['a', 'b', 'é', ' ', '-', 'ß', '😀', 'z'];

describe('search grams (what the Mongo books_search_tokens index holds)', () => {
  it('stores each run of one, two and three characters of each field once, never one spanning two fields', () => {
    const text = bookSearchText({ title: 'Dune', authors: ['Fra'], tags: [], series: null });
    expect(searchGrams(text).sort()).toEqual(['d', 'u', 'n', 'e', 'du', 'un', 'ne', 'dun', 'une', 'f', 'r', 'a', 'fr', 'ra', 'fra'].sort());
    expect(searchGrams(text).some((g) => g.includes(SEARCH_SEPARATOR))).toBe(false);
  });

  it('counts characters by code point, so an emoji is one character', () => {
    expect(searchGrams('a😀b').sort()).toEqual(['a', '😀', 'b', 'a😀', '😀b', 'a😀b'].sort());
  });

  it('folds case as the search text does, so an upper-case field is found by a lower-cased short query', () => {
    const grams = searchGrams(bookSearchText({ title: 'ÉLAN', authors: [], tags: ['ΟΔΟΣ'], series: null }));
    expect(grams).toEqual(expect.arrayContaining(['é', 'él', 'ος', 'ς']));
    expect(grams).not.toContain('É');
    expect(grams).not.toContain('σ');
    expect(shortQueryGram('É'.toLowerCase())).toBe('é');
  });

  it('narrows a query of three or more characters by its three-character grams, and none spanning fields', () => {
    expect(queryGrams('ab')).toBeNull();
    expect(queryGrams(`abc${SEARCH_SEPARATOR}def`)).toBeNull();
    expect(queryGrams('abcd')).toEqual(['abc', 'bcd']);
    expect(queryGrams('a😀bc')).toEqual(['a😀b', '😀bc']);
  });

  it('answers a query of one or two characters with itself, and leaves longer, empty or field-spanning ones alone', () => {
    expect(shortQueryGram('a')).toBe('a');
    expect(shortQueryGram('😀b')).toBe('😀b');
    expect(shortQueryGram('abc')).toBeNull();
    expect(shortQueryGram('')).toBeNull();
    expect(shortQueryGram(`a${SEARCH_SEPARATOR}`)).toBeNull();
    expect(shortQueryGram(SEARCH_SEPARATOR)).toBeNull();
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

  it('holds a short query exactly when the search text holds it as a substring (3,000 seeded texts and queries)', () => {
    const random = seeded(41);
    const letters = [...ALPHABET, 'A', 'É', 'Z'];
    const pick = () => letters[Math.floor(random() * letters.length)] ?? 'a';
    const field = () => Array.from({ length: Math.floor(random() * 6) }, pick).join('');
    let found = 0;
    for (let n = 0; n < 3_000; n++) {
      const text = bookSearchText({ title: field(), authors: [field()], tags: [field(), field()], series: random() < 0.5 ? null : field() });
      const query = Array.from({ length: 1 + Math.floor(random() * 2) }, pick).join('').toLowerCase();
      const gram = shortQueryGram(query);
      expect(gram).not.toBeNull();
      const held = searchGrams(text).includes(gram ?? '');
      expect(held, JSON.stringify([text, query])).toBe(text.includes(query));
      if (held) found++;
    }
    expect(found).toBeGreaterThan(300);
  });
});
