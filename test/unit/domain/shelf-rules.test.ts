import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/domain/errors.js';
import {
  assertShelfBookList, normalizeShelfDescription, normalizeShelfName, rekeyedShelfNames, repeatedIdIndexes, SHELF_BOOKS_MAX, shelfNameKey, unknownBookIdsError,
} from '../../../src/domain/shelf-rules.js';

const thrown = (work: () => unknown): ValidationError => {
  try {
    work();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
};

describe('shelf rules', () => {
  it('trims names and accepts 1 to 100 characters, counting code points', () => {
    expect(normalizeShelfName('  To read \n')).toBe('To read');
    expect(normalizeShelfName('x')).toBe('x');
    expect(normalizeShelfName(`  ${'a'.repeat(100)}  `)).toHaveLength(100);
    expect([...normalizeShelfName('📚'.repeat(100))]).toHaveLength(100);
  });

  it('refuses blank and over-long names with a field error on name', () => {
    for (const bad of ['', '   ', '\t\n', 'a'.repeat(101), '📚'.repeat(101)]) {
      const error = thrown(() => normalizeShelfName(bad));
      expect(error.code).toBe('validation_failed');
      expect(error.errors).toEqual([expect.objectContaining({ field: 'name' })]);
    }
  });

  it('refuses a name that shows nothing once invisible characters are gone', () => {
    for (const bad of ['\u200b', ' \u200d\u2060 ', '\u00ad', '\ufe0f']) {
      expect(thrown(() => normalizeShelfName(bad)).errors).toEqual([{ field: 'name', message: 'must hold a visible character' }]);
    }
    expect(normalizeShelfName('Night\u200b Reading')).toBe('Night\u200b Reading');
  });

  it('keys names by full case folding, as CaseFolding.txt maps them (statuses C and F)', () => {
    const folds: [string, string][] = [
      ['ABC', 'abc'], ['\u00df', 'ss'], ['\u1e9e', 'ss'], ['\u017f', 's'], ['\ufb01', 'fi'], ['\ufb05', 'st'], ['\u0149', '\u02bcn'],
      ['\u03c2', '\u03c3'], ['\u03a3', '\u03c3'], ['\u1fb3', '\u03b1\u03b9'], ['\u0345', '\u03b9'], ['\u03d0', '\u03b2'],
      ['\u212a', 'k'], ['\u2126', '\u03c9'], ['\u01c5', '\u01c6'], ['\u0130', 'i\u0307'], ['\u00b5', '\u03bc'],
      ['\u13a0', '\u13a0'], ['\uab70', '\u13a0'], ['\u0390', '\u0390'], ['\u{10400}', '\u{10428}'], ['\u0131', '\u0131'],
    ];
    for (const [text, folded] of folds) expect(shelfNameKey(text), text).toBe(shelfNameKey(folded));
    expect(shelfNameKey('\u00df')).toBe('ss');
    expect(shelfNameKey('\u0130')).toBe('i\u0307');
  });

  it('keys names after NFC, without invisible characters and outer spaces; keeps what differs visibly apart', () => {
    expect(shelfNameKey('Cafe\u0301')).toBe(shelfNameKey('Caf\u00e9'));
    expect(shelfNameKey('\ufeff Night\u200b Rea\u00adding\u2060 ')).toBe('night reading');
    expect(shelfNameKey('\u{1F468}\u200d\u{1F469}')).toBe('\u{1F468}\u{1F469}');
    for (const [a, b] of [['\u0131', 'i'], ['Night  Reading', 'Night Reading'], ['Cafe', 'Caf\u00e9'], ['\uff21', 'a']]) {
      expect(shelfNameKey(a as string), `${a} / ${b}`).not.toBe(shelfNameKey(b as string));
    }
  });

  it('rekeys stored shelves oldest first, renaming a later one whose name now collides with an older one of its owner', () => {
    const stored = (id: string, ownerId: string, name: string) => ({ id, ownerId, name, nameKey: name.trim().toLowerCase() });
    const long = `${'x'.repeat(99)}\u00df`;
    const changes = rekeyedShelfNames([
      stored('s1', 'ada', 'STRASSE'), stored('s2', 'ada', 'Stra\u00dfe'), stored('s3', 'ada', 'strasse (2)'), stored('s4', 'ada', 'Strasse'),
      stored('s5', 'bob', 'Stra\u00dfe'), stored('s6', 'ada', 'plain'), stored('s7', 'ada', long), stored('s8', 'ada', `${'x'.repeat(99)}SS`),
    ]);
    expect(Object.fromEntries(changes)).toEqual({
      s2: { name: 'Stra\u00dfe (2)', nameKey: 'strasse (2)' },
      s3: { name: 'strasse (2) (2)', nameKey: 'strasse (2) (2)' },
      s4: { name: 'Strasse (3)', nameKey: 'strasse (3)' },
      s5: { name: 'Stra\u00dfe', nameKey: 'strasse' },
      s7: { name: long, nameKey: `${'x'.repeat(99)}ss` },
      s8: { name: `${'x'.repeat(96)} (2)`, nameKey: `${'x'.repeat(96)} (2)` },
    });
    expect(rekeyedShelfNames([stored('s1', 'ada', 'plain'), { id: 's2', ownerId: 'ada', name: 'Stra\u00dfe', nameKey: 'strasse' }]).size).toBe(0);
  });

  it('trims descriptions, turns blank into null and caps the length', () => {
    expect(normalizeShelfDescription('  Long reads  ')).toBe('Long reads');
    expect(normalizeShelfDescription('   ')).toBeNull();
    expect(normalizeShelfDescription(null)).toBeNull();
    expect(thrown(() => normalizeShelfDescription('d'.repeat(2001))).errors[0]?.field).toBe('description');
  });

  it('finds the index of every repeat after the first occurrence', () => {
    expect(repeatedIdIndexes([])).toEqual([]);
    expect(repeatedIdIndexes(['a', 'b', 'c'])).toEqual([]);
    expect(repeatedIdIndexes(['a', 'b', 'a', 'c', 'b', 'a'])).toEqual([2, 4, 5]);
  });

  it('refuses repeated ids, naming each repeat by its index', () => {
    const error = thrown(() => assertShelfBookList(['a', 'b', 'a']));
    expect(error.errors).toEqual([{ field: 'book_ids.2', message: "repeats 'a'" }]);
  });

  it('refuses more than 10,000 ids and accepts exactly 10,000', () => {
    const ids = Array.from({ length: SHELF_BOOKS_MAX }, (_, i) => `b${i}`);
    expect(() => assertShelfBookList(ids)).not.toThrow();
    expect(thrown(() => assertShelfBookList([...ids, 'one-more'])).errors[0]?.field).toBe('book_ids');
  });

  it('names the unknown ids, listing at most 100 while the detail counts them all', () => {
    expect(unknownBookIdsError(['a', 'b'], new Set(['a', 'b']))).toBeNull();
    const error = unknownBookIdsError(['a', 'x', 'b', 'y'], new Set(['a', 'b']));
    expect(error?.errors).toEqual([
      { field: 'book_ids.1', message: "no book with id 'x'" },
      { field: 'book_ids.3', message: "no book with id 'y'" },
    ]);
    const many = Array.from({ length: 250 }, (_, i) => `missing-${i}`);
    const big = unknownBookIdsError(many, new Set());
    expect(big?.errors).toHaveLength(100);
    expect(big?.message).toContain('250');
  });
});
