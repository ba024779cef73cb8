import { addressBucket } from '../../../src/domain/client-address.js';
import { count, fiveXx, limitOutcome, race, basic, tally, type Race, type RaceOutcome } from './race.js';
import { koreaderHeaders } from '../../support/koreader.js';
import { PASSWORD, type Answer } from './race-world.js';

/** The production policies: 10 failures per account, 100 per client address. */
const ACCOUNT_LIMIT = 10;
const ADDRESS_LIMIT = 100;
const BURST = 150;

/**
 * 149 wrong secrets at once, then the right one: at most `limit` of the burst may reach the check, and
 * the right one after it must be refused while the block holds. The right secret is not part of the
 * burst: where it lands among the first `limit` checked it is a fair success, and a success resets the
 * account counter (issue 13), which would let the rest of the burst be checked against a secret the
 * sender already holds.
 */
async function burstThenRight(answers: Answer[], right: Answer, checkedStatuses: number[]): Promise<RaceOutcome> {
  const outcome = limitOutcome([...answers, right], count(answers, ...checkedStatuses), ACCOUNT_LIMIT);
  const admitted = right.status === 429 ? 0 : 1;
  return { ...outcome, limitsExceeded: outcome.limitsExceeded + admitted, note: `${outcome.note}; the right one after: ${right.status}` };
}

/** Every check of a secret, attacked with 150 requests at once: at most the limit may reach the check. */
export const throttleRaces: Race[] = [
  race('RACE-LOGIN-ACCOUNT', '149 wrong passwords at once on one account, then the right one: at most 10 are checked, the right one is refused', async (w) => {
    const victim = await w.fresh('victim');
    const from = w.address();
    const login = (password: string) => w.send('POST', '/api/auth/login', { body: { username: victim.username, password }, from });
    const answers = await w.burst(BURST - 1, (i) => login(`wrong ${i}`));
    // 401 and 200 are answers that reached bcrypt; 429 was refused before it.
    return burstThenRight(answers, await login(PASSWORD), [401, 200]);
  }),
  race('RACE-LOGIN-ACCOUNT-SPREAD', '150 wrong passwords at once on one account from 150 addresses: at most 10 are checked', async (w) => {
    const victim = await w.fresh('spread');
    const answers = await w.burst(BURST, (i) =>
      w.send('POST', '/api/auth/login', { body: { username: victim.username, password: `wrong ${i}` }, from: w.address() }));
    return limitOutcome(answers, count(answers, 401, 200), ACCOUNT_LIMIT);
  }),
  race('RACE-LOGIN-ADDRESS', '150 wrong logins at once from one address over 150 accounts: at most 100 are checked', async (w) => {
    const from = w.address();
    const answers = await w.burst(BURST, (i) =>
      w.send('POST', '/api/auth/login', { body: { username: `nobody${i}x`, password: 'wrong password' }, from }));
    return limitOutcome(answers, count(answers, 401, 200), ADDRESS_LIMIT);
  }),
  race('RACE-PASSWORD-CURRENT', '149 wrong guesses of the current password at once, then the right one: at most 10 are checked, the right one is refused', async (w) => {
    const owner = await w.fresh('guess');
    const change = (current: string) =>
      w.send('PUT', '/api/auth/password', { token: owner.token, body: { current_password: current, new_password: 'a brand new passphrase' }, from: w.address() });
    const answers = await w.burst(BURST - 1, (i) => change(`wrong ${i}`));
    // 403 invalid_current_password and 204 reached bcrypt; 429 did not.
    return burstThenRight(answers, await change(PASSWORD), [403, 204]);
  }),
  race('RACE-OPDS-BASIC', '149 OPDS requests with wrong Basic passwords at once, then the right one: at most 10 are checked, the right one is refused', async (w) => {
    const victim = await w.fresh('reader');
    const from = w.address();
    const opds = (password: string) => w.send('GET', '/opds', { headers: basic(victim.username, password), from });
    const answers = await w.burst(BURST - 1, (i) => opds(`wrong ${i}`));
    return burstThenRight(answers, await opds(PASSWORD), [401, 200]);
  }),
  race('RACE-API-KEY-ADDRESS', '150 wrong stk_ bearers at once from one address: at most 100 are answered as checked (401), the rest 429', async (w) => {
    const from = w.address();
    const answers = await w.burst(BURST, (i) => w.send('GET', '/api/auth/me', { token: `stk_${String(i).padStart(43, 'Q')}`, from }));
    // 401 invalid_token was counted as a failure; 429: the address was already blocked.
    return limitOutcome(answers, count(answers, 401, 200), ADDRESS_LIMIT);
  }),
  race('RACE-API-KEY-VALID-BURST', '150 right stk_ bearers at once from one address, then 99 wrong ones: every right one served, none counted, so the 99 wrong ones are all still checked (401)', async (w) => {
    const owner = await w.fresh('honest');
    const key = (await w.send('POST', '/api/auth/keys', { token: owner.token, body: { name: 'script' } })).body.key as string;
    const from = w.address();
    const right = await w.burst(BURST, () => w.send('GET', '/api/auth/me', { token: key, from }));
    const counted = (await w.throttleOf(`api-key-address:${addressBucket(from)}`)) !== null ? 1 : 0;
    const wrong = await w.burst(ADDRESS_LIMIT - 1, (i) => w.send('GET', '/api/auth/me', { token: `stk_${String(i).padStart(43, 'V')}`, from }));
    const refusedRight = BURST - count(right, 200);
    const refusedEarly = count(wrong, 429);
    return {
      ...limitOutcome([...right, ...wrong], 0, 0), limitsExceeded: refusedRight + refusedEarly + counted,
      note: `right: ${JSON.stringify(tally(right))}${counted ? ' (and the address counter was written)' : ''}; wrong: ${JSON.stringify(tally(wrong))}`,
    };
  }),
  race('RACE-KOSYNC-VALID-BURST', '150 right KOReader keys at once from one address over 30 accounts: every one served, none counted against the address', async (w) => {
    const from = w.address();
    // 5 at once per account: the account counters (10) are not what this race is about.
    const readers = await Promise.all(Array.from({ length: 30 }, async () => {
      const reader = await w.fresh('kobo');
      return { reader, key: (await w.send('POST', '/api/auth/keys', { token: reader.token, body: { name: 'kobo' } })).body.key as string };
    }));
    const answers = await w.burst(BURST, (i) => {
      const { reader, key } = readers[i % readers.length]!;
      return w.send('GET', '/kosync/users/auth', { headers: koreaderHeaders(reader.username, key), from });
    });
    const wrong = await w.burst(ADDRESS_LIMIT - 1, (i) => w.send('GET', '/kosync/users/auth', { headers: koreaderHeaders(`nobody${i}q`, `stk_${i}`), from }));
    return { ...limitOutcome([...answers, ...wrong], 0, 0), limitsExceeded: BURST - count(answers, 200) + count(wrong, 429), note: `right: ${JSON.stringify(tally(answers))}; wrong: ${JSON.stringify(tally(wrong))}` };
  }),
  race('RACE-API-KEY-OPDS', '150 OPDS requests with wrong stk_ passwords at once from one address: at most 100 reach the lookup', async (w) => {
    const victim = await w.fresh('keyed');
    const from = w.address();
    const answers = await w.burst(BURST, (i) =>
      w.send('GET', '/opds', { headers: basic(victim.username, `stk_${String(i).padStart(43, 'R')}`), from }));
    return limitOutcome(answers, count(answers, 401, 200), ADDRESS_LIMIT);
  }),
  race('RACE-KOSYNC-ACCOUNT', '149 wrong KOReader keys and the right one at once on one account from 150 addresses: at most 10 reach the lookup', async (w) => {
    const victim = await w.fresh('kosync');
    const key = (await w.send('POST', '/api/auth/keys', { token: victim.token, body: { name: 'kobo' } })).body.key as string;
    const answers = await w.burst(BURST, (i) =>
      w.send('GET', '/kosync/users/auth', { headers: koreaderHeaders(victim.username, i === BURST - 1 ? key : `stk_${i}`), from: w.address() }));
    // 401 and 200 reached the key lookup; 429 was refused before it.
    return limitOutcome(answers, count(answers, 401, 200), ACCOUNT_LIMIT);
  }),
  race('RACE-KOSYNC-ADDRESS', '150 wrong KOReader keys at once from one address over 150 usernames: at most 100 reach the lookup', async (w) => {
    const from = w.address();
    const answers = await w.burst(BURST, (i) =>
      w.send('PUT', '/kosync/syncs/progress', { headers: koreaderHeaders(`reader${i}k`, `stk_${i}`), body: { document: 'a'.repeat(32) }, from }));
    return limitOutcome(answers, count(answers, 401, 200), ADDRESS_LIMIT);
  }),
];

/** Lockouts that spare their owners (API.md): an address the account signed in from keeps its own budget. */
export const lockoutRaces: Race[] = [
  race('RACE-LOCKOUT-HOME', '150 wrong passwords at once from 150 addresses block the account; its owner still signs in from home, while 149 wrong ones at once from home let at most 10 through', async (w) => {
    const victim = await w.fresh('home');
    const home = w.address();
    const login = (password: string, from: string) => w.send('POST', '/api/auth/login', { body: { username: victim.username, password }, from });
    const first = await login(PASSWORD, home);
    const away = await w.burst(BURST, (i) => login(`wrong ${i}`, w.address()));
    const elsewhere = await login(PASSWORD, w.address());
    const owner = await login(PASSWORD, home);
    const atHome = await w.burst(BURST - 1, (i) => login(`home wrong ${i}`, home));
    const after = await login(PASSWORD, home);
    const checked = count(away, 401, 200);
    const checkedHome = count(atHome, 401, 200);
    const exceeded = Math.max(0, checked - ACCOUNT_LIMIT) + Math.max(0, checkedHome - ACCOUNT_LIMIT)
      + (first.status === 200 ? 0 : 1) + (elsewhere.status === 429 ? 0 : 1) + (owner.status === 200 ? 0 : 1) + (after.status === 429 ? 0 : 1);
    const all = [first, ...away, elsewhere, owner, ...atHome, after];
    return { ...limitOutcome(all, 0, 0), limitsExceeded: exceeded,
      note: `away ${JSON.stringify(tally(away))}, elsewhere ${elsewhere.status}, owner at home ${owner.status}, home burst ${JSON.stringify(tally(atHome))}, after ${after.status}` };
  }),
  race('RACE-LOCKOUT-KOSYNC', '150 wrong KOReader keys at once for an account from 150 addresses; its owner\'s KOReader and password still work from home', async (w) => {
    const victim = await w.fresh('kohome');
    const home = w.address();
    const key = (await w.send('POST', '/api/auth/keys', { token: victim.token, body: { name: 'kobo' } })).body.key as string;
    const first = await w.send('GET', '/kosync/users/auth', { headers: koreaderHeaders(victim.username, key), from: home });
    const away = await w.burst(BURST, (i) => w.send('GET', '/kosync/users/auth', { headers: koreaderHeaders(victim.username, `stk_${i}`), from: w.address() }));
    const sync = await w.send('GET', '/kosync/users/auth', { headers: koreaderHeaders(victim.username, key), from: home });
    const login = await w.send('POST', '/api/auth/login', { body: { username: victim.username, password: PASSWORD }, from: home });
    const exceeded = Math.max(0, count(away, 401, 200) - ACCOUNT_LIMIT) + [first, sync, login].filter((a) => a.status !== 200).length;
    return { ...limitOutcome([first, ...away, sync, login], 0, 0), limitsExceeded: exceeded, note: `away ${JSON.stringify(tally(away))}, sync ${sync.status}, login ${login.status}` };
  }),
  race('RACE-KNOWN-ADDRESSES', '100 sign-ins from 100 addresses, 5 at a time, each make their address known: after a block by others, all 100 at once still sign in', async (w) => {
    const owner = await w.fresh('roamer');
    const homes = Array.from({ length: 100 }, () => w.address());
    const login = (password: string, from: string) => w.send('POST', '/api/auth/login', { body: { username: owner.username, password }, from });
    // Five at a time: sign-ins in flight count against the shared account counter (10) until they succeed.
    const first: Answer[] = [];
    for (let i = 0; i < homes.length; i += 5) first.push(...(await w.burst(5, (j) => login(PASSWORD, homes[i + j]!))));
    await w.burst(ACCOUNT_LIMIT + 5, (i) => login(`wrong ${i}`, w.address()));
    const again = await w.burst(homes.length, (i) => login(PASSWORD, homes[i]!));
    return { limitsExceeded: 0, lostUpdates: homes.length - count(again, 200) + (homes.length - count(first, 200)), fiveXx: fiveXx([...first, ...again]),
      note: `first ${JSON.stringify(tally(first))}, after the block ${JSON.stringify(tally(again))}` };
  }),
];

/**
 * Waits until the fixed window of `windowMs` holding now has a margin left: a burst across the turn
 * would meet two budgets. Shared budgets (MongoDB, WORKERS > 1) count in windows fixed to the epoch.
 */
async function awayFromTheTurn(windowMs: number, marginMs = 10_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 500));
}

/** Per-address request budgets, in a Stacks started with small ones. */
export const budgetRaces: Race[] = [
  race('RACE-REGISTER-BUDGET', '150 registrations at once from one address with REGISTER_LIMIT_PER_HOUR=30: at most 30 accounts', async (w) => {
    const from = w.address();
    await awayFromTheTurn(3_600_000);
    const answers = await w.burst(BURST, (i) =>
      w.send('POST', '/api/auth/register', { body: { username: `budget${i}z`, email: `budget${i}z@example.test`, password: PASSWORD }, from }));
    return limitOutcome(answers, count(answers, 201), 30);
  }),
  race('RACE-REQUEST-BUDGET', '150 requests at once from one address with RATE_LIMIT_PER_MINUTE=100: at most 100 served', async (w) => {
    const from = w.address();
    await awayFromTheTurn(60_000);
    const answers = await w.burst(BURST, () => w.send('GET', '/api/auth/config', { from }));
    return limitOutcome(answers, answers.filter((a) => a.status !== 429).length, 100);
  }),
];
