import { describe, expect, it } from 'vitest';
import { checkXml } from '../../../src/adapters/metadata/safe-xml.js';
import { cleanText, finishMetadata, htmlToText, normaliseDate, normaliseIsbn, splitAuthors } from '../../../src/adapters/metadata/sanitize.js';
import { UnprocessableError } from '../../../src/domain/errors.js';

describe('metadata sanitising (UP-11)', () => {
  it.each([
    ['978-0-306-40615-7', '9780306406157'],
    ['urn:isbn:0-306-40615-2', '0306406152'],
    ['ISBN 080442957X', '080442957X'],
    ['0-8044-2957-x', '080442957X'],
    ['9780306406158', null],
    ['urn:uuid:1234', null],
    ['12345', null],
  ])('normaliseIsbn(%j) = %j', (input, expected) => expect(normaliseIsbn(input)).toBe(expected));

  it.each([
    ['2019', '2019'],
    ['2019-04', '2019-04'],
    ['2019-04-01T10:00:00Z', '2019-04-01'],
    ['D:20190401120000+02', '2019-04-01'],
    ['2015-04-27T00:00:00+02:00', '2015-04-26'],
    ["D:20200101003000+01'00'", '2019-12-31'],
    ['2019-04-01T23:30:00-05:00', '2019-04-02'],
    ['0101-01-01T00:00:00+00:00', null],
    ['0100-06-01', null],
    ['0102-01-01', '0102-01-01'],
    ['2019-02-30', '2019-02'],
    ['2019-13-01', '2019'],
    ['April 2019', null],
  ])('normaliseDate(%j) = %j', (input, expected) => expect(normaliseDate(input)).toBe(expected));

  it('splits authors as calibre does: on &, " and ", " with " (not ;, not inside names), && is a literal &', () => {
    expect(splitAuthors('A. Anderson; B & C and D Sand')).toEqual(['A. Anderson; B', 'C', 'D Sand']);
    expect(splitAuthors('Ann Rand, and Sandy Andrews with Bo')).toEqual(['Ann Rand', 'Sandy Andrews', 'Bo']);
    expect(splitAuthors('Simon && Schuster')).toEqual(['Simon & Schuster']);
  });

  it('removes controls, bidi overrides and lone surrogates, collapses spaces and caps length', () => {
    expect(cleanText(' a\u0000b\u202Ec\uD800  d\n', 10)).toBe('abc d');
    expect(cleanText('x'.repeat(1000), 500)).toHaveLength(500);
    expect(cleanText({ $gt: '' }, 10)).toBeNull();
    expect(cleanText('   ', 10)).toBeNull();
  });

  it('turns escaped HTML into text without executing or keeping markup', () => {
    expect(htmlToText('&lt;script&gt;alert(1)&lt;/script&gt;&lt;p&gt;Safe &amp;amp; sound&lt;/p&gt;')).toBe(' \nSafe & sound\n'); // trimmed later by cleanText
  });

  it('caps lists, drops duplicates and non-strings, and keeps a series index only with a series (number 1 when the file gives none)', () => {
    const many = Array.from({ length: 500 }, (_, i) => `tag ${i}`);
    const out = finishMetadata({ authors: ['A', 'a', 42, null, 'B'], tags: many, seriesIndex: '3', language: 'en_US' });
    expect(out).toEqual({ authors: ['A', 'B'], tags: many.slice(0, 100), language: 'en-US' });
    expect(finishMetadata({ series: 'S', seriesIndex: 'NaN' })).toEqual({ series: 'S', seriesIndex: 1 });
  });
});

describe('XML pre-checks (UP-06)', () => {
  const limits = { maxXmlBytes: 2 * 1024 * 1024, maxXmlDepth: 256 };

  it('rejects DOCTYPE and ENTITY in any case, before parsing', () => {
    for (const xml of ['<!DOCTYPE a><a/>', '<a><!ENTITY x "y"></a>', '<!doctype a><a/>']) {
      expect(() => checkXml(xml, limits)).toThrow(UnprocessableError);
    }
  });

  it('rejects 100 000-deep nesting quickly and accepts depth within the limit', () => {
    const started = Date.now();
    expect(() => checkXml('<a>'.repeat(100_000) + '</a>'.repeat(100_000), limits)).toThrow(/nesting/);
    expect(Date.now() - started).toBeLessThan(500);
    expect(() => checkXml(`<r x="a>b">${'<a/>'.repeat(1000)}${'<b>'.repeat(200)}${'</b>'.repeat(200)}<!-- <c> --></r>`, limits)).not.toThrow();
  });
});
