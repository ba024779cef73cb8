import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import bcrypt from 'bcryptjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliHarness } from './cli-harness.js';

let cli: CliHarness;
beforeEach(() => {
  cli = new CliHarness();
});
afterEach(() => cli.cleanup());

const user = (name: string) => cli.inStore((store) => store.users.findByUsername(name));

describe('stacks user create', { timeout: 60_000 }, () => {
  it('creates a local account with the given roles, even with registration closed, and stores a bcrypt hash', async () => {
    cli.env['REGISTRATION' as keyof typeof cli.env] = 'closed';
    const run = await cli.run(['user', 'create', 'Alice', 'Alice@Example.test', '--password-stdin', '--role', 'admin', '--role', 'reader'], {
      stdin: 'correct horse battery\n',
    });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^created Alice \(id [A-Za-z0-9_-]+, roles admin, reader\)\n$/);
    const stored = await user('alice');
    expect(stored).toMatchObject({ username: 'Alice', email: 'alice@example.test', roles: ['admin', 'reader'], authProvider: 'local', disabled: false });
    expect(stored?.passwordHash).toMatch(/^\$2[aby]\$04\$/);
    expect(await bcrypt.compare('correct horse battery', stored?.passwordHash ?? '')).toBe(true);
  });

  it('defaults to the user role and takes --password', async () => {
    expect((await cli.run(['user', 'create', 'bob', 'bob@example.test', '--password', 'open sesame 42'])).code).toBe(0);
    expect((await user('bob'))?.roles).toEqual(['user']);
  });

  it('refuses a taken username, a short password and a bad e-mail with exit 1, storing nothing new', async () => {
    await cli.run(['user', 'create', 'carol', 'carol@example.test', '--password', 'long enough pw']);
    const taken = await cli.run(['user', 'create', 'CAROL', 'other@example.test', '--password', 'long enough pw']);
    expect(taken).toMatchObject({ code: 1 });
    expect(taken.stderr).toContain('(username_already_exists)');
    const short = await cli.run(['user', 'create', 'dave', 'dave@example.test', '--password', 'short']);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('password must be at least 8 characters');
    const email = await cli.run(['user', 'create', 'erin', 'not-an-email', '--password', 'long enough pw']);
    expect(email.stderr).toContain('email must be an e-mail address');
    expect(await cli.inStore((s) => s.users.count())).toBe(1);
  });

  it('treats missing passwords, unknown roles, unknown options and unknown commands as usage errors (exit 2)', async () => {
    for (const argv of [
      ['user', 'create', 'frank', 'frank@example.test'],
      ['user', 'create', 'frank', 'frank@example.test', '--password', 'x', '--password-stdin'],
      ['user', 'create', 'frank', 'frank@example.test', '--password', 'long enough pw', '--role', 'owner'],
      ['user', 'create', 'frank', '--password', 'long enough pw'],
      ['user', 'create', 'frank', 'frank@example.test', '--pasword', 'long enough pw'],
      ['user', 'frobnicate', 'frank'],
      ['shelve'],
      ['import', 'somewhere'],
    ]) {
      const run = await cli.run(argv);
      expect(run.code, argv.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/^error: .+\n\nUsage: stacks <command>/);
    }
    expect(await cli.inStore((s) => s.users.count())).toBe(0);
  });
});

describe('stacks user roles / reset-password / disable / enable', { timeout: 60_000 }, () => {
  beforeEach(async () => {
    await cli.run(['user', 'create', 'root', 'root@example.test', '--password', 'root password', '--role', 'admin']);
    await cli.run(['user', 'create', 'gina', 'gina@example.test', '--password', 'old password']);
  });

  it('sets roles (case-insensitive username) and refuses to demote the last admin', async () => {
    const run = await cli.run(['user', 'roles', 'GINA', 'reader', 'user']);
    expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining('roles reader, user') });
    expect((await user('gina'))?.roles).toEqual(['reader', 'user']);
    const last = await cli.run(['user', 'roles', 'root', 'user']);
    expect(last.code).toBe(1);
    expect(last.stderr).toContain('(last_admin)');
    expect((await user('root'))?.roles).toEqual(['admin']);
  });

  it('resets a password from stdin and bumps the token version so older tokens stop working', async () => {
    const before = await user('gina');
    const run = await cli.run(['user', 'reset-password', 'gina', '--password-stdin'], { stdin: 'brand new secret\r\nignored line' });
    expect(run.code).toBe(0);
    const after = await user('gina');
    expect(await bcrypt.compare('brand new secret', after?.passwordHash ?? '')).toBe(true);
    expect(await bcrypt.compare('old password', after?.passwordHash ?? '')).toBe(false);
    expect(after?.tokenVersion).toBe((before?.tokenVersion ?? 0) + 1);
    expect((await cli.run(['user', 'reset-password', 'gina', '--password-stdin'], { stdin: '' })).code).toBe(2);
  });

  it('unlock lifts every sign-in block of the account (its own, its addresses\', its current-password guesses); so does reset-password', async () => {
    const block = async () => cli.inStore(async (store) => {
      const gina = await store.users.findByUsername('gina');
      await store.knownAddresses.remember(gina!.id, '198.51.100.1', new Date());
      for (const key of [`account:${gina!.id}`, `account:${gina!.id}@198.51.100.1`, `password:${gina!.id}`]) {
        for (let i = 0; i < 10; i++) await store.throttle.reserve(key, new Date(), { maxFailures: 10, windowMs: 900_000, blockMs: 3_600_000, maxBlockMs: 3_600_000 });
      }
      return gina!.id;
    });
    const counters = (id: string) => cli.inStore(async (store) =>
      Promise.all([`account:${id}`, `account:${id}@198.51.100.1`, `password:${id}`].map(async (key) => (await store.throttle.get(key))?.blockedUntil ?? null)));
    const id = await block();
    expect((await counters(id)).every((until) => until !== null)).toBe(true);
    const run = await cli.run(['user', 'unlock', 'GINA']);
    expect(run).toMatchObject({ code: 0, stdout: 'unlocked gina: every sign-in block lifted\n' });
    expect(await counters(id)).toEqual([null, null, null]);
    await block();
    expect((await cli.run(['user', 'reset-password', 'gina', '--password', 'a brand new one'])).code).toBe(0);
    expect(await counters(id)).toEqual([null, null, null]);
    expect((await cli.run(['user', 'unlock', 'nobody'])).code).toBe(1);
    expect((await cli.run(['user', 'unlock'])).code).toBe(2);
  });

  it('disables and enables an account; an unknown user is exit 1', async () => {
    expect((await cli.run(['user', 'disable', 'gina'])).stdout).toContain('disabled');
    expect((await user('gina'))?.disabled).toBe(true);
    expect((await cli.run(['user', 'enable', 'gina'])).code).toBe(0);
    expect((await user('gina'))?.disabled).toBe(false);
    const missing = await cli.run(['user', 'disable', 'nobody']);
    expect(missing).toMatchObject({ code: 1, stderr: "error: No user 'nobody'. (user_not_found)\n" });
  });
});

describe('the stacks executable', () => {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const entry = resolve(import.meta.dirname, '../../../src/bootstrap/cli.ts');
  const exec = (args: string[], stdin?: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      const options = { env: { PATH: process.env['PATH'] ?? '' }, cwd: cli.dataDir, timeout: 30_000 };
      const child = execFile(process.execPath, ['--import', tsx, entry, ...args], options, (error, stdout, stderr) =>
        done({ code: error ? Number(error.code) : 0, stdout, stderr }));
      child.stdin?.end(stdin ?? '');
    });

  it('reads its configuration from .env, the password from stdin, and returns the exit codes', async () => {
    const dotEnv = Object.entries(cli.env).map(([k, v]) => `${k}=${v}`).join('\n');
    writeFileSync(join(cli.dataDir, '.env'), `${dotEnv}\n`);
    const created = await exec(['user', 'create', 'hank', 'hank@example.test', '--password-stdin'], 'piped password\n');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect((await user('hank'))?.email).toBe('hank@example.test');
    expect(await bcrypt.compare('piped password', (await user('hank'))?.passwordHash ?? '')).toBe(true);
    const usage = await exec(['import']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('import <folder> --owner <username>');
  }, 60_000);
});
