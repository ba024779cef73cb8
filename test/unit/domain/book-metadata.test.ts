import { describe, expect, it } from 'vitest';
import { bookIdOfBlobKey, displayFileName, fileNameStem } from '../../../src/domain/book-file-name.js';
import {
  cleanFileMetadata,
  isPartialDate,
  mergeMetadata,
  metadataFromFileName,
  normalizeIsbn,
  normalizeMetadataPatch,
} from '../../../src/domain/book-metadata.js';
import { ValidationError } from '../../../src/domain/errors.js';

describe('mergeMetadata', () => {
  const fromFile = { title: 'File Title', authors: ['File Author'], tags: ['file'], publisher: 'File Pub', seriesIndex: 3, series: 'S' };

  it('takes overrides first, then the file, then the file name', () => {
    expect(mergeMetadata({ title: 'Mine', tags: [] }, fromFile, 'Name Author - Name Title.epub')).toEqual({
      title: 'Mine', authors: ['File Author'], tags: [], publisher: 'File Pub', series: 'S', seriesIndex: 3,
      description: null, language: null, published: null, isbn: null,
    });
  });

  it('falls back to `Author - Title.ext` and `Title.ext`, and to Untitled', () => {
    expect(mergeMetadata({}, {}, 'Ursula K. Le Guin - The Dispossessed.epub')).toMatchObject({ title: 'The Dispossessed', authors: ['Ursula K. Le Guin'] });
    expect(mergeMetadata({}, { authors: [] }, 'the_dispossessed.pdf')).toMatchObject({ title: 'the dispossessed', authors: [] });
    expect(mergeMetadata({}, {}, null)).toMatchObject({ title: 'Untitled', authors: [] });
    expect(mergeMetadata({}, {}, '../../.epub').title).toBe('Untitled');
  });

  it('keeps file authors over file-name authors, and file-name authors when the file has none', () => {
    expect(mergeMetadata({}, { authors: ['A'] }, 'B - T.txt').authors).toEqual(['A']);
    expect(mergeMetadata({}, { title: 'T' }, 'B - X.txt')).toMatchObject({ title: 'T', authors: ['B'] });
  });

  it('caps and cleans what the file says instead of refusing it', () => {
    const cleaned = cleanFileMetadata({
      title: `  ${'t'.repeat(600)}  `, authors: Array.from({ length: 60 }, (_, i) => `A${i}`), language: 'not a tag!',
      published: '2019-13-01', isbn: '123', description: 'a\u202Eb\r\n\r\n\r\nc', seriesIndex: -2,
    });
    expect(cleaned.title).toHaveLength(500);
    expect(cleaned.authors).toHaveLength(50);
    expect(cleaned).toMatchObject({ language: null, published: null, isbn: null, description: 'ab\n\nc', seriesIndex: null });
  });
});

describe('normalizeMetadataPatch', () => {
  it('trims and cleans valid values', () => {
    expect(normalizeMetadataPatch({ title: '  A\tB  ', authors: [' X ', 'x', ''], isbn: '0-306-40615-2', description: '  ' })).toEqual({
      title: 'A B', authors: ['X'], isbn: '0306406152', description: null,
    });
  });

  it('names every invalid field in one ValidationError', () => {
    const attempt = () =>
      normalizeMetadataPatch({ title: ' ', published: '2019-02-29', seriesIndex: -1, isbn: '9780306406158', language: 'x', tags: ['t'.repeat(101)] });
    expect(attempt).toThrow(ValidationError);
    try {
      attempt();
    } catch (e) {
      expect((e as ValidationError).errors.map((f) => f.field).sort()).toEqual(['isbn', 'language', 'published', 'series_index', 'tags', 'title']);
    }
  });
});

describe('dates, ISBNs and file names', () => {
  it.each([
    ['2019', true], ['2019-04', true], ['2019-04-30', true], ['2020-02-29', true], ['1900-02-29', false], ['2000-02-29', true],
    ['2019-04-31', false], ['2019-13', false], ['0000', false], ['19', false], ['2019-4-1', false], ['2019-04-01T00:00:00Z', false],
  ])('isPartialDate(%s) is %s', (value, ok) => {
    expect(isPartialDate(value)).toBe(ok);
  });

  it('accepts ISBNs with valid check digits only', () => {
    expect(normalizeIsbn('978-0-306-40615-7')).toBe('9780306406157');
    expect(normalizeIsbn('5-280-00152-x')).toBe('528000152X');
    expect(normalizeIsbn('978-0-306-40615-8')).toBeNull();
    expect(normalizeIsbn('1234567890123')).toBeNull();
  });

  it('makes a safe display name with the detected extension, never empty', () => {
    expect(displayFileName('../../etc/passwd', 'txt', 'T')).toBe('passwd.txt');
    expect(displayFileName('C:\\Users\\me\\Dune.EPUB', 'epub', 'T')).toBe('Dune.epub');
    expect(displayFileName('evil\r\nX-Injected: 1.pdf', 'pdf', 'T')).toBe('evilX-Injected_ 1.pdf');
    expect(displayFileName('\u202Egpj.exe', 'epub', 'T')).toBe('gpj.epub');
    expect(displayFileName('looks.epub', 'pdf', 'T')).toBe('looks.pdf');
    expect(displayFileName('...', 'cbz', 'My / Comic')).toBe('My _ Comic.cbz');
    expect(displayFileName(null, 'fb2', '\u0000')).toBe('book.fb2');
    expect([...fileNameStem('é'.repeat(10_000))!]).toHaveLength(150);
  });

  it('maps blob keys back to book ids, and nothing else', () => {
    expect(bookIdOfBlobKey('abc.book')).toBe('abc');
    expect(bookIdOfBlobKey('abc.cover')).toBe('abc');
    expect(bookIdOfBlobKey('abc.part')).toBeNull();
    expect(bookIdOfBlobKey('.book')).toBeNull();
  });

  it('reads `Author - Title` only around a spaced dash', () => {
    expect(metadataFromFileName('Jean-Paul Sartre - Nausea.epub')).toEqual({ title: 'Nausea', authors: ['Jean-Paul Sartre'] });
    expect(metadataFromFileName('Spider-Man.cbz')).toEqual({ title: 'Spider-Man', authors: [] });
  });
});
