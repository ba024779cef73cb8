import { count, limitOutcome, race, basic, type Race } from './race.js';
import { koreaderHeaders } from '../../support/koreader.js';
import { PASSWORD } from './race-world.js';

/** The production policies: 10 failures per account, 100 per client address. */
const ACCOUNT_LIMIT = 10;
const ADDRESS_LIMIT = 100;
const BURST = 150;

/** Every check of a secret, attacked with 150 requests at once: at most the limit may reach the check. */
export const throttleRaces: Race[] = [
  race('RACE-LOGIN-ACCOUNT', '149 wrong passwords and the right one at once on one account: at most 10 are checked', async (w) => {
    const victim = await w.fresh('victim');
    const from = w.address();
    const answers = await w.burst(BURST, (i) =>
      w.send('POST', '/api/auth/login', { body: { username: victim.username, password: i === BURST - 1 ? PASSWORD : `wrong ${i}` }, from }));
    // 401 and 200 are answers that reached bcrypt; 429 was refused before it.
    return limitOutcome(answers, count(answers, 401, 200), ACCOUNT_LIMIT);
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
  race('RACE-PASSWORD-CURRENT', '150 guesses of the current password at once: at most 10 are checked', async (w) => {
    const owner = await w.fresh('guess');
    const answers = await w.burst(BURST, (i) =>
      w.send('PUT', '/api/auth/password', {
        token: owner.token,
        body: { current_password: i === BURST - 1 ? PASSWORD : `wrong ${i}`, new_password: 'a brand new passphrase' },
        from: w.address(),
      }));
    // 403 invalid_current_password and 204 reached bcrypt; 429 did not.
    return limitOutcome(answers, count(answers, 403, 204), ACCOUNT_LIMIT);
  }),
  race('RACE-OPDS-BASIC', '150 OPDS requests with wrong Basic passwords at once: at most 10 are checked', async (w) => {
    const victim = await w.fresh('reader');
    const from = w.address();
    const answers = await w.burst(BURST, (i) =>
      w.send('GET', '/opds', { headers: basic(victim.username, i === BURST - 1 ? PASSWORD : `wrong ${i}`), from }));
    return limitOutcome(answers, count(answers, 401, 200), ACCOUNT_LIMIT);
  }),
  race('RACE-API-KEY-ADDRESS', '150 wrong stk_ bearers at once from one address: at most 100 reach the key lookup', async (w) => {
    const from = w.address();
    const answers = await w.burst(BURST, (i) => w.send('GET', '/api/auth/me', { token: `stk_${String(i).padStart(43, 'Q')}`, from }));
    // 401 invalid_token reached the lookup; 429 was refused before it.
    return limitOutcome(answers, count(answers, 401, 200), ADDRESS_LIMIT);
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

/** Per-address request budgets, in a Stacks started with small ones. */
export const budgetRaces: Race[] = [
  race('RACE-REGISTER-BUDGET', '150 registrations at once from one address with REGISTER_LIMIT_PER_HOUR=30: at most 30 accounts', async (w) => {
    const from = w.address();
    const answers = await w.burst(BURST, (i) =>
      w.send('POST', '/api/auth/register', { body: { username: `budget${i}z`, email: `budget${i}z@example.test`, password: PASSWORD }, from }));
    return limitOutcome(answers, count(answers, 201), 30);
  }),
  race('RACE-REQUEST-BUDGET', '150 requests at once from one address with RATE_LIMIT_PER_MINUTE=100: at most 100 served', async (w) => {
    const from = w.address();
    const answers = await w.burst(BURST, () => w.send('GET', '/api/auth/config', { from }));
    return limitOutcome(answers, answers.filter((a) => a.status !== 429).length, 100);
  }),
];
