import { describe, expect, it } from 'vitest';
import { SEARCH_SEPARATOR, type BookQuery } from '../../../src/domain/book.js';
import { MAX_QUERY_LENGTH, searchPlan } from '../../../src/adapters/mongo/mongo-book-search.js';

const filterFor = (q: BookQuery) => searchPlan(q).filter;
import { escapeRegex } from '../../../src/adapters/mongo/mongo-database.js';

const query = (extra: Partial<BookQuery>): BookQuery => ({ sort: { field: 'title', descending: false }, page: 1, pageSize: 20, ...extra });

describe('Mongo book filter', () => {
  it('escapes every regular-expression metacharacter, so q matches only itself', () => {
    const text = '.*+?^${}()|[]\\/-';
    const pattern = new RegExp(escapeRegex(text));
    expect(pattern.test(text)).toBe(true);
    expect(pattern.test('anything else')).toBe(false);
    expect(new RegExp(escapeRegex('a.c')).test('abc')).toBe(false);
  });

  it('writes a NUL as \\x00, since MongoDB refuses a pattern holding a NUL byte', () => {
    const pattern = escapeRegex('ab\u0000c.d');
    expect(pattern).not.toContain('\u0000');
    expect(new RegExp(pattern).test('xab\u0000c.dx')).toBe(true);
    expect(new RegExp(pattern).test('abc.d')).toBe(false);
  });

  it('searches the lower-cased search text for a lower-cased, length-capped q, the index sent the one gram chosen among its grams', () => {
    const offered: string[][] = [];
    const plan = searchPlan(query({ q: `ÉLAN ${'x'.repeat(500)}` }), 'all', (grams) => (offered.push([...grams]), 'n x'));
    const filter = plan.filter as { searchText: { $regex: string }; searchTokens: string };
    expect(filter.searchText.$regex.startsWith('élan x')).toBe(true);
    expect(offered).toEqual([['éla', 'lan', 'an ', 'n x', ' xx', 'xxx']]);
    expect(filter.searchTokens).toBe('n x');
    expect(filter.searchText.$regex).toHaveLength(MAX_QUERY_LENGTH);
    expect(plan).toMatchObject({ index: 'books_search_tokens', inMemorySort: true });
  });

  it('sends every q longer than three characters in one shape (one gram, one pattern), so long queries add no plan-cache shapes', () => {
    const shapeOf = (q: string) => JSON.stringify(Object.entries(searchPlan(query({ q })).filter).map(([field, condition]) => [field, typeof condition === 'string' ? 'value' : Object.keys(condition as object)]));
    const shapes = new Set(['abcd', 'the left hand of darkness', 'x'.repeat(MAX_QUERY_LENGTH), 'ünïcödé wörds'].map(shapeOf));
    expect([...shapes]).toEqual([JSON.stringify([['searchTokens', 'value'], ['searchText', ['$regex']]])]);
  });

  it('answers a q of exactly three characters by its one gram, no substring test', () => {
    expect(searchPlan(query({ q: 'Abc' }))).toMatchObject({ filter: { searchTokens: 'abc' }, index: 'books_search_tokens', inMemorySort: true });
  });

  it('walks the author\'s or the tag\'s own index in the sort\'s order (early stop) instead of sorting their books', () => {
    expect(searchPlan(query({ tag: 'SF' }))).toMatchObject({ filter: { tagKeys: 'sf' }, index: 'books_by_tag_title', inMemorySort: false });
    expect(searchPlan({ ...query({ author: 'Ann' }), sort: { field: 'published', descending: true } }))
      .toMatchObject({ index: 'books_by_author_published_desc', inMemorySort: false });
    expect(searchPlan(query({ tag: 'sf', q: 'e' }))).toMatchObject({ filter: { tagKeys: 'sf', searchTokens: 'e' }, index: 'books_by_tag_title', inMemorySort: false });
  });

  it('answers a q of one or two characters with one equality on the indexed grams, no substring test', () => {
    expect(searchPlan(query({ q: 'Ab' }))).toMatchObject({ filter: { searchTokens: 'ab' }, index: 'books_search_tokens', inMemorySort: true });
    expect(searchPlan(query({ q: 'É' })).filter).toEqual({ searchTokens: 'é' });
  });

  it('matches the search text alone for whatever the grams cannot answer: an upgrade\'s backfill still running, or a q spanning fields', () => {
    expect(searchPlan(query({ q: 'Ab' }), 'three').filter).toEqual({ searchText: { $regex: 'ab' } });
    expect(searchPlan(query({ q: 'Abc' }), 'three').filter).toEqual({ searchTokens: 'abc' });
    expect(searchPlan(query({ q: 'Abcd' }), 'three').filter).toEqual({ searchTokens: 'abc', searchText: { $regex: 'abcd' } });
    expect(searchPlan(query({ q: 'Abc' }), 'none').filter).toEqual({ searchText: { $regex: 'abc' } });
    expect(searchPlan(query({ q: `a${SEARCH_SEPARATOR}` })).filter).toEqual({ searchText: { $regex: escapeRegex(`a${SEARCH_SEPARATOR}`) } });
  });

  it('turns filter values into plain strings, so no operator object reaches the query', () => {
    const hostile = { $ne: null } as unknown as string;
    const filter = filterFor(query({ author: hostile, tag: hostile, q: hostile }));
    expect(filter).toEqual({
      authorKeys: '[object object]',
      tagKeys: '[object object]',
      searchText: { $regex: '\\[object Object\\]'.toLowerCase() },
      searchTokens: '[ob',
    });
  });

  it('matches authors and tags exactly on their lower-cased arrays, and formats as given', () => {
    expect(filterFor(query({ author: 'Ursula K. Le Guin', tag: 'Science Fiction', format: 'epub' }))).toEqual({
      authorKeys: 'ursula k. le guin', tagKeys: 'science fiction', format: 'epub',
    });
    expect(filterFor(query({}))).toEqual({});
  });
});
