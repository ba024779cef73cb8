import { describe, expect, it } from 'vitest';
import { admin, alice, aWorld, errorOf } from '../../support/kit.js';

describe('ListRoles', () => {
  it('lists the built-in roles with their permissions', () => {
    expect(aWorld().listRoles.execute(admin)).toEqual([
      { name: 'admin', permissions: ['admin:*'] },
      { name: 'user', permissions: ['books:read', 'books:write', 'books:delete', 'shelves:read', 'shelves:write'] },
      { name: 'reader', permissions: ['books:read', 'shelves:read'] },
    ]);
  });

  it('is permission_denied for anyone but an admin', async () => {
    const listRoles = aWorld().listRoles;
    expect(await errorOf(Promise.resolve().then(() => listRoles.execute(alice)))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
  });
});
