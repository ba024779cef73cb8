import { beforeEach, describe, expect, it } from 'vitest';
import { AccountLockout } from '../../../src/application/use-cases/account-lockout.js';
import { LoginUser } from '../../../src/application/use-cases/login-user.js';
import { KNOWN_BLOCK_RECHECK_MS } from '../../../src/domain/known-blocks.js';
import { HeldPasswordHasher, settle } from '../../support/held-password-hasher.js';
import { admin, aWorld, DEFAULT_WORLD_SETTINGS, errorOf, type World } from '../../support/kit.js';

let w: World;
const PASSWORD = 'correct horse battery';
const ADDRESS = '203.0.113.7';
const at = (login: string, password = PASSWORD, clientAddress = ADDRESS) => ({ login, password, clientAddress });
/** Another instance's lockout over the same store: its own memory of blocks. */
const lockoutOfAnotherInstance = () => new AccountLockout(w.store.throttle, w.store.knownAddresses, w.clock, DEFAULT_WORLD_SETTINGS.loginPolicies.account);
const outcome = (r: PromiseSettledResult<unknown>) => (r.status === 'fulfilled' ? 'signed in' : (r.reason as { code: string }).code);
beforeEach(async () => {
  w = aWorld();
  await w.storeUser({ username: 'Gina', email: 'gina@example.test', passwordHash: await w.hasher.hash(PASSWORD) });
});

describe('LoginUser', () => {
  it('signs in by username in any case or by e-mail, with a token for the account', async () => {
    for (const login of ['gina', ' GINA ', 'Gina@Example.test']) {
      const { user, token } = await w.loginUser.execute(at(login));
      expect(user.username).toBe('Gina');
      expect((await w.authenticate.execute(token.token)).user.id).toBe(user.id);
    }
  });

  it('fails alike with invalid_credentials for a wrong password, an unknown user and a disabled account', async () => {
    const { user: off } = await w.storeUser({ username: 'off', passwordHash: await w.hasher.hash(PASSWORD), disabled: true });
    for (const input of [at('gina', 'wrong password'), at('nobody'), at(off.username)]) {
      expect(await errorOf(w.loginUser.execute(input))).toMatchObject({ kind: 'unauthenticated', code: 'invalid_credentials' });
    }
  });

  it('blocks an account after repeated failures, even with the right password, until the block ends', async () => {
    for (let i = 0; i < 3; i++) await errorOf(w.loginUser.execute(at('gina', 'wrong password', `198.51.100.${i}`)));
    const blocked = await errorOf(w.loginUser.execute(at('gina')));
    expect(blocked).toMatchObject({ kind: 'rate_limited', code: 'rate_limited', retryAfterSeconds: 300 });
    w.clock.advance(5 * 60_000);
    expect((await w.loginUser.execute(at('gina'))).user.username).toBe('Gina');
  });

  it('counts each attempt before the password check: of 8 at once, 3 reach it while they run and 5 are refused', async () => {
    const hasher = new HeldPasswordHasher();
    const login = new LoginUser(w.store.users, hasher, w.tokens, w.store.throttle, w.clock, DEFAULT_WORLD_SETTINGS.loginPolicies, true, w.lockout, w.events);
    const attempts = Promise.allSettled(Array.from({ length: 8 }, (_, i) => login.execute(at('gina', i === 7 ? PASSWORD : `wrong ${i}`, `198.51.100.${i}`))));
    await settle();
    expect(hasher.checks).toBe(3);
    hasher.release();
    const outcomes = (await attempts).map(outcome);
    expect(outcomes).toEqual([...Array<string>(3).fill('invalid_credentials'), ...Array<string>(5).fill('rate_limited')]);
  });

  it('forgets earlier failures of an account after a successful sign-in, and does not count the success against the address', async () => {
    for (let i = 0; i < 2; i++) await errorOf(w.loginUser.execute(at('gina', 'wrong password')));
    await w.loginUser.execute(at('gina'));
    const gina = await w.store.users.findByUsername('gina');
    expect(await w.store.throttle.get(`account:${gina?.id}`)).toBeNull();
    expect((await w.store.throttle.get(`address:${ADDRESS}`))?.failures).toBe(2);
    await errorOf(w.loginUser.execute(at('gina', 'wrong password')));
    expect((await w.loginUser.execute(at('gina'))).user.username).toBe('Gina');
  });

  it('gives the address its attempt back when the account refuses it', async () => {
    for (let i = 0; i < 3; i++) await errorOf(w.loginUser.execute(at('gina', 'wrong password', '198.51.100.1')));
    for (let i = 0; i < 20; i++) expect((await errorOf(w.loginUser.execute(at('gina')))).code).toBe('rate_limited');
    expect(await w.store.throttle.get(`address:${ADDRESS}`)).toMatchObject({ failures: 0, blockedUntil: null });
  });

  it('refuses a login the store has blocked from memory for a few seconds, then asks the store again: a block lifted elsewhere is honoured', async () => {
    for (let i = 0; i < 3; i++) await errorOf(w.loginUser.execute(at('gina', 'wrong password', `198.51.100.${i}`)));
    expect(await errorOf(w.loginUser.execute(at('Gina ')))).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 300 });
    const gina = await w.store.users.findByUsername('gina');
    await w.store.throttle.reset(`account:${gina?.id}`); // as an admin unlock on another instance sharing the store would
    w.clock.advance(1_000);
    expect(await errorOf(w.loginUser.execute(at('gina')))).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 299 });
    const otherInstance = new LoginUser(w.store.users, w.hasher, w.tokens, w.store.throttle, w.clock, DEFAULT_WORLD_SETTINGS.loginPolicies, true, lockoutOfAnotherInstance(), w.events);
    expect((await otherInstance.execute(at('gina'))).user.username).toBe('Gina');
    w.clock.advance(KNOWN_BLOCK_RECHECK_MS);
    expect((await w.loginUser.execute(at('gina'))).user.username).toBe('Gina');
  });

  it('forgets a block it knew of when an attempt admitted before the block signs in (the store lifted it)', async () => {
    const hasher = new HeldPasswordHasher();
    const login = new LoginUser(w.store.users, hasher, w.tokens, w.store.throttle, w.clock, DEFAULT_WORLD_SETTINGS.loginPolicies, true, w.lockout, w.events);
    const admitted = Promise.allSettled(['wrong 1', 'wrong 2', PASSWORD].map((password) => login.execute(at('gina', password))));
    await settle();
    expect(hasher.checks).toBe(3);
    expect((await errorOf(login.execute(at('gina@example.test')))).code).toBe('rate_limited');
    hasher.release();
    expect((await admitted).map(outcome)).toEqual(['invalid_credentials', 'invalid_credentials', 'signed in']);
    expect((await login.execute(at('GINA@example.test'))).user.username).toBe('Gina');
  });

  it('blocks a client address that fails across many accounts', async () => {
    for (let i = 0; i < 10; i++) await errorOf(w.loginUser.execute(at(`unknown${i}`)));
    expect(await errorOf(w.loginUser.execute(at('gina')))).toMatchObject({ kind: 'rate_limited', code: 'rate_limited', retryAfterSeconds: 900 });
    expect((await w.loginUser.execute(at('gina', PASSWORD, '192.0.2.1'))).user.username).toBe('Gina');
  });

  it('counts an IPv6 client by its /56 network, so rotating addresses inside it does not escape the block', async () => {
    for (let i = 0; i < 10; i++) await errorOf(w.loginUser.execute(at(`unknown${i}`, PASSWORD, `2001:db8:abcd:12${i.toString(16)}0::${i + 1}`)));
    expect((await errorOf(w.loginUser.execute(at('gina', PASSWORD, '2001:db8:abcd:12ff:1:2:3:4')))).code).toBe('rate_limited');
    expect((await w.loginUser.execute(at('gina', PASSWORD, '2001:db8:abcd:1300::1'))).user.username).toBe('Gina');
  });

  it('is local_login_disabled when password login is turned off', async () => {
    const sso = aWorld({ registration: { registrationOpen: true, localLogin: false, defaultRole: 'user', firstUserBecomesAdmin: false } });
    expect(await errorOf(sso.loginUser.execute(at('gina')))).toMatchObject({ kind: 'forbidden', code: 'local_login_disabled' });
  });
});

describe('AccountLockout: lockouts that spare their owners', () => {
  const HOME = '198.51.100.10';
  const block = async () => {
    for (let i = 0; i < 3; i++) await errorOf(w.loginUser.execute(at('gina', `wrong ${i}`, `203.0.113.${i + 20}`)));
    expect((await errorOf(w.loginUser.execute(at('gina', PASSWORD, '203.0.113.99')))).code).toBe('rate_limited');
  };
  const gina = async () => (await w.store.users.findByUsername('gina'))!;

  it('keeps signing in from an address the account signed in from, while other addresses have blocked the account', async () => {
    await w.loginUser.execute(at('gina', PASSWORD, HOME));
    await block();
    expect((await w.loginUser.execute(at('gina', PASSWORD, HOME))).user.username).toBe('Gina');
    expect(await w.lockout.lockedUntil((await gina()).id)).toEqual(new Date(w.clock.now().getTime() + 5 * 60_000));
  });

  it('counts only that address\'s failures against it: its own budget, its own block', async () => {
    await w.loginUser.execute(at('gina', PASSWORD, HOME));
    for (let i = 0; i < 3; i++) await errorOf(w.loginUser.execute(at('gina', `wrong ${i}`, HOME)));
    expect((await errorOf(w.loginUser.execute(at('gina', PASSWORD, HOME)))).code).toBe('rate_limited');
    expect((await w.loginUser.execute(at('gina', PASSWORD, '192.0.2.200'))).user.username).toBe('Gina');
    expect(await w.lockout.lockedUntil((await gina()).id)).toBeNull();
  });

  it('forgets an address 30 days after its last sign-in: it shares the account\'s counter again', async () => {
    await w.loginUser.execute(at('gina', PASSWORD, HOME));
    w.clock.advance(30 * 86_400_000 + 1);
    await block();
    expect((await errorOf(w.loginUser.execute(at('gina', PASSWORD, HOME)))).code).toBe('rate_limited');
  });

  it('does not make an address known by a failure, nor by a success of another account', async () => {
    const { user: other } = await w.storeUser({ username: 'other', passwordHash: await w.hasher.hash(PASSWORD) });
    await errorOf(w.loginUser.execute(at('gina', 'wrong', HOME)));
    await w.loginUser.execute(at(other.username, PASSWORD, HOME));
    await block();
    expect((await errorOf(w.loginUser.execute(at('gina', PASSWORD, HOME)))).code).toBe('rate_limited');
  });

  it('is lifted by an admin unlock, at once on this instance, for the account and its addresses alike', async () => {
    await w.loginUser.execute(at('gina', PASSWORD, HOME));
    await block();
    for (let i = 0; i < 3; i++) await errorOf(w.loginUser.execute(at('gina', `wrong ${i}`, HOME)));
    await w.unlockUser.execute(admin, (await gina()).id);
    expect(await w.lockout.lockedUntil((await gina()).id)).toBeNull();
    expect((await w.loginUser.execute(at('gina', PASSWORD, '203.0.113.99'))).user.username).toBe('Gina');
    expect((await w.loginUser.execute(at('gina', PASSWORD, HOME))).user.username).toBe('Gina');
  });

  it('is lifted by an admin password reset', async () => {
    await block();
    await w.resetPassword.execute(admin, { userId: (await gina()).id, newPassword: 'a fresh password' });
    expect((await w.loginUser.execute(at('gina', 'a fresh password', '203.0.113.99'))).user.username).toBe('Gina');
  });
});

describe('AuthEvents: auth events', () => {
  it('writes one per check, with the account\'s id or a keyed tag of the login, never the login, password or address mix-up', async () => {
    const { id } = (await w.store.users.findByUsername('gina'))!;
    await errorOf(w.loginUser.execute(at('gina', 'my password typed here')));
    await errorOf(w.loginUser.execute(at('my password typed here', 'x')));
    await w.loginUser.execute(at('gina'));
    const events = w.logged.filter((l) => l.message === 'auth').map((l) => l.details);
    expect(events).toEqual([
      { event: 'auth_failed', method: 'password', user_id: id, address: ADDRESS, code: 'invalid_credentials' },
      { event: 'auth_failed', method: 'password', login_tag: w.secrets.tag('my password typed here'), address: ADDRESS, code: 'invalid_credentials' },
      { event: 'auth_succeeded', method: 'password', user_id: id, address: ADDRESS },
    ]);
    expect(JSON.stringify(w.logged)).not.toContain('my password typed here');
  });
});
