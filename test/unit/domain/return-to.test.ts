import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeReturnTo, withLoginCode } from '../../../src/domain/return-to.js';

const ORIGINS = ['https://books.example', 'https://app.example:8443'];

describe('safeReturnTo', () => {
  it.each([
    ['/', '/'],
    ['/library', '/library'],
    ['/library?view=grid&page=2#top', '/library?view=grid&page=2#top'],
    ['/a/b%20c', '/a/b%20c'],
    ['https://books.example/after-login', 'https://books.example/after-login'],
    ['https://app.example:8443/x?y=1', 'https://app.example:8443/x?y=1'],
    ['HTTPS://BOOKS.EXAMPLE/x', 'https://books.example/x'],
  ])('keeps %j', (value, expected) => {
    expect(safeReturnTo(value, ORIGINS)).toBe(expected);
  });

  it.each([
    undefined, null, '', 'library', 'evil.example', '//evil.example', '///evil.example', '/\\evil.example', '\\\\evil.example',
    '/%5Cevil.example', '/%5cevil.example', '/%255Cevil.example', '/%2F/evil.example', '/%2f%2fevil.example',
    '/%09/evil.example', '/\t/evil.example', '/\n/evil.example', '/%0d%0aSet-Cookie:x=1', '/ /x', '/%E2%80%A8x', '/%zz',
    'https://evil.example/', 'https:evil.example', 'https:/evil.example', 'http://books.example/', 'https://books.example.evil.example/',
    'https://books.example@evil.example/', 'http://app@evil.example', 'https://user:pw@books.example/', 'javascript:alert(1)',
    'JavaScript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'ftp://books.example/', '/..//evil.example', `/${'a'.repeat(2048)}`,
  ])('refuses %j', (value) => {
    expect(safeReturnTo(value as string | undefined, ORIGINS)).toBeNull();
  });

  it('never yields anything a browser would resolve to another origin (property, fixed seed)', () => {
    const pieces = fc.constantFrom('/', '//', '\\', '%5C', '%2F', '%09', '%25', '.', '..', '@', ':', 'evil.example', 'https:', 'books.example', '?', '#', '\t', ' ');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 8 }).map((p) => p.join('')), (value) => {
        const result = safeReturnTo(value, ORIGINS);
        if (result === null) return;
        const resolved = new URL(result, 'https://books.example/api/auth/oidc/callback');
        expect(ORIGINS).toContain(resolved.origin);
        expect(new URL(withLoginCode(result, 'c'), 'https://books.example/').origin).toBe(resolved.origin);
      }),
      { seed: 20261122, numRuns: 3000 },
    );
  });
});

describe('withLoginCode', () => {
  it.each([
    ['/library', '/library?code=abc'],
    ['/library?view=grid', '/library?view=grid&code=abc'],
    ['/library#top', '/library?code=abc#top'],
    ['https://books.example/x?y=1#z', 'https://books.example/x?y=1&code=abc#z'],
  ])('adds the code to %j', (target, expected) => {
    expect(withLoginCode(target, 'abc')).toBe(expected);
  });
});
