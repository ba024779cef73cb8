import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import * as core from '../../src/index.js';
import type { IssuedToken, TokenClaims, TokenService, User } from '../../src/index.js';
import { FakeClock, PlainPasswordHasher, SequentialIds, SequentialSecrets } from '../support/kit.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'stacks-core-entry-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const FORBIDDEN = ['express', 'better-sqlite3', 'mongodb', 'openid-client', 'pino', 'piscina', 'jsonwebtoken', 'bcryptjs', 'zod'];

/** Every module URL resolved while a fresh Node process imports `entry` (tsx for TypeScript). */
async function modulesLoadedBy(entry: string): Promise<string[]> {
  const log = join(work, `${entry.replace(/\W+/g, '-')}.log`);
  const hook = pathToFileURL(join(root, 'test/support/record-imports.mjs')).href;
  const script = [
    "import { register } from 'node:module';",
    `register(${JSON.stringify(hook)}, { data: { log: ${JSON.stringify(log)} } });`,
    `await import(${JSON.stringify(pathToFileURL(join(root, entry)).href)});`,
  ].join('\n');
  await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, timeout: 30_000 });
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

const packagesIn = (urls: readonly string[]) =>
  new Set(urls.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []));

describe('the embeddable core entry (package.json "exports": ".")', () => {
  it('loads only its own sources and Node built-ins: no Express, no database driver, no logger', async () => {
    const urls = await modulesLoadedBy('src/index.ts');
    expect(urls.some((u) => u.endsWith('/src/index.ts'))).toBe(true);
    expect(urls.some((u) => u.includes('/src/adapters/memory/'))).toBe(true);
    const packages = packagesIn(urls);
    expect(FORBIDDEN.filter((name) => packages.has(name))).toEqual([]);
    expect([...packages]).toEqual([]);
    const outside = urls.filter((u) => !u.startsWith('node:') && !u.startsWith(pathToFileURL(join(root, 'src')).href));
    expect(outside).toEqual([]);
    expect(urls.filter((u) => /\/src\/(bootstrap|adapters\/(?!memory\/))/.test(u))).toEqual([]);
  });

  it('is what package.json exports as "." (with its types), next to the stacks command', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(manifest.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    expect(manifest.bin).toEqual({ stacks: 'dist/bootstrap/cli.js' });
    expect(readFileSync(join(root, 'src/bootstrap/cli.ts'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it('re-exports every domain module and every use-case module', () => {
    const index = readFileSync(join(root, 'src/index.ts'), 'utf8');
    for (const dir of ['domain', 'application/use-cases']) {
      const missing = readdirSync(join(root, 'src', dir)).filter((f) => f.endsWith('.ts') && !index.includes(`'./${dir}/${f.replace(/\.ts$/, '.js')}'`));
      expect(missing, `src/index.ts should re-export these from src/${dir}`).toEqual([]);
    }
  });

  it('can fail: the same probe on the adapter wiring sees the JWT library', async () => {
    // (The SQLite driver is required only when the first database opens, beyond an import probe.)
    const packages = packagesIn(await modulesLoadedBy('src/bootstrap/adapters.ts'));
    expect(FORBIDDEN.filter((name) => packages.has(name))).toContain('jsonwebtoken');
  });
});

describe('a scenario driven through the core alone, without HTTP', () => {
  class CountingTokens implements TokenService {
    private issued = new Map<string, TokenClaims>();
    issue(user: User): IssuedToken {
      const jti = `t${this.issued.size + 1}`;
      this.issued.set(jti, { userId: user.id, jti, tokenVersion: user.tokenVersion, expiresAt: new Date('2027-01-01T00:00:00Z') });
      return { token: jti, jti, expiresIn: 3600 };
    }
    verify(token: string): TokenClaims {
      const claims = this.issued.get(token);
      if (!claims) throw new core.AuthenticationError('invalid_token', 'unknown token');
      return claims;
    }
  }
  const clock = new FakeClock();
  const ids = new SequentialIds('id-');

  it('registers, logs in, authenticates a token and creates a shelf over the in-memory store', async () => {
    const store = core.createMemoryStore();
    const hasher = new PlainPasswordHasher();
    const tokens = new CountingTokens();
    const settings = { registrationOpen: true, localLogin: true, defaultRole: 'user' as const, firstUserBecomesAdmin: true };
    const register = new core.RegisterUser(store.users, hasher, tokens, clock, ids, settings);
    const { user } = await register.execute({ username: 'ada', email: 'Ada@Example.test', password: 'analytical engine' });
    expect(user).toMatchObject({ username: 'ada', email: 'ada@example.test', roles: ['admin'] });

    const policies = { account: { maxFailures: 3, windowMs: 60_000, blockMs: 60_000, maxBlockMs: 60_000 }, address: { maxFailures: 9, windowMs: 60_000, blockMs: 60_000, maxBlockMs: 60_000 } };
    const events = new core.AuthEvents({ info: () => undefined, warn: () => undefined }, new SequentialSecrets());
    const lockout = new core.AccountLockout(store.throttle, store.knownAddresses, clock, policies.account);
    const login = new core.LoginUser(store.users, hasher, tokens, store.throttle, clock, policies, true, lockout, events);
    await expect(login.execute({ login: 'ada', password: 'wrong password', clientAddress: 'cli' })).rejects.toBeInstanceOf(core.AuthenticationError);
    const { token } = await login.execute({ login: 'ADA', password: 'analytical engine', clientAddress: 'cli' });
    const authority = new core.Authority(store.users, store.apiKeys, clock, store.koboDevices);
    const { actor } = await new core.Authenticate(tokens, authority).execute(token.token);
    expect(core.isAdmin(actor)).toBe(true);

    const shelf = await new core.CreateShelf(store.shelves, store.books, clock, ids, authority).execute(actor, { name: '  Notes ', isPublic: true });
    expect(shelf).toMatchObject({ name: 'Notes', isPublic: true, owner: { id: user.id, username: 'ada' }, bookCount: 0 });
    const page = await new core.ListShelves(store.shelves).execute(actor, { onlyOwn: true, page: 1, pageSize: 20 });
    expect(page.items.map((s) => s.name)).toEqual(['Notes']);
    await expect(new core.CreateShelf(store.shelves, store.books, clock, ids, authority).execute(actor, { name: 'notes' })).rejects.toMatchObject({ code: 'shelf_name_taken' });
    await store.close();
  });
});
