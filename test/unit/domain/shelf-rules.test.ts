import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/domain/errors.js';
import {
  assertShelfBookList, normalizeShelfDescription, normalizeShelfName, repeatedIdIndexes, SHELF_BOOKS_MAX, unknownBookIdsError,
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
