import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliHarness } from './cli-harness.js';

let cli: CliHarness;
beforeEach(async () => {
  cli = new CliHarness();
  expect((await cli.run(['user', 'create', 'kate', 'kate@example.test', '--password', 'long enough pw', '--role', 'reader'])).code).toBe(0);
});
afterEach(() => cli.cleanup());

const lookupOf = (secret: string) => createHash('sha256').update(createHash('md5').update(secret).digest('hex')).digest('base64url');
const keysOf = (username: string) => cli.inStore(async (store) => {
  const user = await store.users.findByUsername(username);
  return (await store.apiKeys.listByOwner(user?.id ?? '', { page: 1, pageSize: 100 })).items;
});

describe('stacks keys', { timeout: 60_000 }, () => {
  it('create prints the secret alone on stdout and stores only its digest, with the given ceiling and expiry', async () => {
    const run = await cli.run(['keys', 'create', 'Kate', '--name', 'kobo', '--permission', 'books:read', '--expires-at', '2030-01-01T00:00:00Z']);
    expect(run.code).toBe(0);
    const secret = run.stdout.trim();
    expect(secret).toMatch(/^stk_[A-Za-z0-9_-]{43}$/);
    expect(run.stderr).toContain('shown only now');
    expect(run.stderr).not.toContain(secret);
    const [stored] = await keysOf('kate');
    expect(stored).toMatchObject({ name: 'kobo', permissions: ['books:read'], lookup: lookupOf(secret), expiresAt: new Date('2030-01-01T00:00:00Z') });
  });

  it('list shows each key without its secret; revoke deletes it', async () => {
    const secret = (await cli.run(['keys', 'create', 'kate', '--name', 'script'])).stdout.trim();
    const [key] = await keysOf('kate');
    const list = await cli.run(['keys', 'list', 'kate']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`${key?.id}  script  stk_${secret.slice(4, 12)}…  books:read,shelves:read  expires never`);
    expect(list.stdout).not.toContain(secret);
    expect((await cli.run(['keys', 'revoke', 'kate', key?.id ?? ''])).code).toBe(0);
    expect(await keysOf('kate')).toEqual([]);
    const again = await cli.run(['keys', 'revoke', 'kate', key?.id ?? '']);
    expect([again.code, again.stderr.includes('(api_key_not_found)')]).toEqual([1, true]);
  });

  it('refuses a permission the user lacks (exit 1) and malformed command lines (exit 2)', async () => {
    const denied = await cli.run(['keys', 'create', 'kate', '--name', 'w', '--permission', 'books:write']);
    expect([denied.code, denied.stderr.includes('(permission_denied)')]).toEqual([1, true]);
    for (const argv of [['keys', 'create', 'kate'], ['keys', 'create', 'kate', '--name', 'x', '--permission', 'books:steal'],
      ['keys', 'create', 'kate', '--name', 'x', '--expires-at', 'tomorrow'], ['keys', 'revoke', 'kate'], ['keys', 'rotate', 'kate'], ['keys']]) {
      expect((await cli.run(argv)).code, argv.join(' ')).toBe(2);
    }
    expect((await cli.run(['keys', 'list', 'nobody'])).code).toBe(1);
    expect(await keysOf('kate')).toEqual([]);
  });

  it('list escapes a stored name holding terminal escapes (ESC, OSC 52, CR, C1): nothing raw reaches the terminal', async () => {
    const hostile = 'kobo\u001b]52;c;ZXZpbA==\u0007\r\u009b2Jfake line\u2028\u202e';
    await cli.inStore(async (store) => {
      const kate = await store.users.findByUsername('kate');
      await store.apiKeys.create({
        id: 'old-key', ownerId: kate!.id, name: hostile, lookup: 'stored-before-the-rules', prefix: 'abcdefgh', permissions: ['books:read'],
        ownerTokenVersion: kate!.tokenVersion, expiresAt: null, lastUsedAt: null, createdAt: new Date(0),
      });
    });
    const list = await cli.run(['keys', 'list', 'kate']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('old-key  kobo\\x1b]52;c;ZXZpbA==\\x07\\x0d\\x9b2Jfake line\\u2028\\u202e  stk_abcdefgh…');
    expect(list.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u202e]/);
  });

  it('refuses a key name with a control character, tab or line break (exit 1), storing nothing', async () => {
    for (const name of ['bad\u001bname', 'tab\tname', 'two\nlines', 'nul\u0000']) {
      const run = await cli.run(['keys', 'create', 'kate', '--name', name]);
      expect([run.code, run.stderr.includes('(validation_failed)')], JSON.stringify(name)).toEqual([1, true]);
    }
    expect(await keysOf('kate')).toEqual([]);
  });
});
