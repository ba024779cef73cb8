import { describe, expect, it } from 'vitest';
import { placeholderEmail, rolesFromClaim, usernameBase, usernameCandidate } from '../../../src/domain/oidc-user.js';
import type { RoleName } from '../../../src/domain/permissions.js';
import { USERNAME_PATTERN } from '../../../src/domain/user.js';

describe('usernameBase', () => {
  it.each([
    ['carol', null, 'carol'],
    [null, 'dave.smith@example.test', 'dave.smith'],
    ['Zoë Ünal', null, 'Zoe-Unal'],
    ['bob@example.test', null, 'bob-example.test'],
    ['..--x', null, 'user'],
    ['ab', null, 'user'],
    [null, null, 'user'],
    ['名前', 'jp@example.test', 'user'],
    ['a'.repeat(80), null, 'a'.repeat(42)],
  ])('makes %j / %j into %j', (preferred, email, expected) => {
    expect(usernameBase(preferred, email)).toBe(expected);
  });

  it('leaves room for a suffix: every candidate is a valid username', () => {
    const base = usernameBase('x'.repeat(200), null);
    for (const attempt of [0, 1, 19]) expect(usernameCandidate(base, attempt)).toMatch(USERNAME_PATTERN);
    expect(usernameCandidate('carol', 0)).toBe('carol');
    expect(usernameCandidate('carol', 1)).toBe('carol-2');
  });
});

describe('rolesFromClaim', () => {
  const map = new Map<string, RoleName>([['library-admins', 'admin'], ['readers', 'reader']]);

  it('maps known values, ignores others, and falls back to the default role', () => {
    expect(rolesFromClaim(['readers', 'misc'], map, 'user')).toEqual(['reader']);
    expect(rolesFromClaim(['library-admins', 'readers', 'readers'], map, 'user')).toEqual(['admin', 'reader']);
    expect(rolesFromClaim(['misc'], map, 'user')).toEqual(['user']);
    expect(rolesFromClaim([], map, 'reader')).toEqual(['reader']);
  });

  it('does not treat inherited object keys as claim values', () => {
    expect(rolesFromClaim(['constructor', '__proto__', 'toString'], map, 'user')).toEqual(['user']);
  });
});

describe('placeholderEmail', () => {
  it('is lower-case, unique per id, and on a reserved domain', () => {
    expect(placeholderEmail('01JD2X8Q')).toBe('01jd2x8q@sso.invalid');
  });
});
