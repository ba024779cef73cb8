import { beforeEach, describe, expect, it } from 'vitest';
import { oidcLoginCodeKey } from '../../../src/application/use-cases/exchange-oidc-code.js';
import type { User } from '../../../src/domain/user.js';
import { aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

/** Stores a login code for the user as CompleteOidcLogin does: by digest, for a minute. */
async function codeFor(user: User, code = 'one-time-code'): Promise<string> {
  await w.store.oneTimeCodes.put(oidcLoginCodeKey(w.secrets.digest(code)), user.id, new Date(w.clock.now().getTime() + 60_000));
  return code;
}

describe('ExchangeOidcCode', () => {
  it("trades a code for the account's token, once", async () => {
    const { user } = await w.storeUser();
    const code = await codeFor(user);
    const result = await w.exchangeOidcCode.execute({ code });
    expect(result.user).toEqual(user);
    expect((await w.authenticate.execute(result.token.token)).user.id).toBe(user.id);
    expect(await errorOf(w.exchangeOidcCode.execute({ code }))).toMatchObject({ kind: 'bad_request', code: 'invalid_code' });
  });

  it('answers invalid_code for an unknown, empty, over-long or expired code', async () => {
    const { user } = await w.storeUser();
    const code = await codeFor(user);
    for (const wrong of ['not-the-code', '', 'x'.repeat(257)]) {
      expect(await errorOf(w.exchangeOidcCode.execute({ code: wrong }))).toMatchObject({ kind: 'bad_request', code: 'invalid_code' });
    }
    w.clock.advance(60_001);
    expect(await errorOf(w.exchangeOidcCode.execute({ code }))).toMatchObject({ kind: 'bad_request', code: 'invalid_code' });
  });

  it('answers invalid_code when the account was deleted, and account_disabled when it was disabled', async () => {
    const deleted = await w.storeUser();
    const lost = await codeFor(deleted.user, 'code-of-deleted');
    await w.store.users.delete(deleted.user.id);
    expect(await errorOf(w.exchangeOidcCode.execute({ code: lost }))).toMatchObject({ kind: 'bad_request', code: 'invalid_code' });
    const { user } = await w.storeUser({ disabled: true });
    expect(await errorOf(w.exchangeOidcCode.execute({ code: await codeFor(user) }))).toMatchObject({ kind: 'forbidden', code: 'account_disabled' });
  });
});
