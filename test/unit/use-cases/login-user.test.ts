import { beforeEach, describe, expect, it } from 'vitest';
import { aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
const PASSWORD = 'correct horse battery';
const at = (login: string, password = PASSWORD, clientAddress = '203.0.113.7') => ({ login, password, clientAddress });
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

  it('forgets earlier failures of an account after a successful sign-in', async () => {
    for (let i = 0; i < 2; i++) await errorOf(w.loginUser.execute(at('gina', 'wrong password')));
    await w.loginUser.execute(at('gina'));
    await errorOf(w.loginUser.execute(at('gina', 'wrong password')));
    expect((await w.loginUser.execute(at('gina'))).user.username).toBe('Gina');
  });

  it('blocks a client address that fails across many accounts', async () => {
    for (let i = 0; i < 10; i++) await errorOf(w.loginUser.execute(at(`unknown${i}`)));
    expect(await errorOf(w.loginUser.execute(at('gina')))).toMatchObject({ kind: 'rate_limited', code: 'rate_limited' });
    expect((await w.loginUser.execute(at('gina', PASSWORD, '192.0.2.1'))).user.username).toBe('Gina');
  });

  it('is local_login_disabled when password login is turned off', async () => {
    const sso = aWorld({ registration: { registrationOpen: true, localLogin: false, defaultRole: 'user', firstUserBecomesAdmin: false } });
    expect(await errorOf(sso.loginUser.execute(at('gina')))).toMatchObject({ kind: 'forbidden', code: 'local_login_disabled' });
  });
});
