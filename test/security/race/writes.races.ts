import { count, fiveXx, race, tally, type Race, type RaceOutcome } from './race.js';
import { PASSWORD, STORES_UNDER_RACE, type Answer, type Caller, type RaceWorld } from './race-world.js';
import { raceServer } from './race-server.js';
import { koreaderHeaders, koreaderKey } from '../../support/koreader.js';
import { SYNC_DOCUMENTS_PER_USER } from '../../../src/domain/kosync.js';

const PAIRS = 50;
const BURST = 100;

/** Uploads a small plain-text book; the text decides the SHA-256. */
async function upload(w: RaceWorld, owner: Caller, text: string): Promise<Answer> {
  const form = new FormData();
  form.append('file', new Blob([`${text}\n`]), `${owner.username} - ${text.slice(0, 40)}.txt`);
  const res = await w.request('/api/books', { method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'x-forwarded-for': w.address() }, body: form });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function books(w: RaceWorld, owner: Caller, n: number, label: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await upload(w, owner, `${label} ${i} ${owner.username}`);
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(res.body)}`);
    ids.push(res.body.id as string);
  }
  return ids;
}

async function shelf(w: RaceWorld, owner: Caller, name: string, bookIds: string[] = []): Promise<string> {
  const res = await w.send('POST', '/api/shelves', { token: owner.token, body: { name, book_ids: bookIds } });
  if (res.status !== 201) throw new Error(`shelf: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** Two writers per item, every pair at once (a world's burst: a cluster's log shows which workers served each). */
const pairs = async <T>(w: RaceWorld, items: readonly T[], two: (item: T, i: number) => [Promise<Answer>, Promise<Answer>]): Promise<Answer[]> =>
  (await w.burst(items.length, (i) => Promise.all(two(items[i]!, i)))).flat();

const outcome = (answers: readonly Answer[], lost: number, exceeded: number, note: string): RaceOutcome =>
  ({ limitsExceeded: exceeded, lostUpdates: lost, fiveXx: fiveXx(answers), note: `${note}; statuses ${JSON.stringify(tally(answers))}` });

/**
 * 100 registrations at once on a fresh, empty store of the world's kind (the world itself already has
 * its admin): how many answers and stored accounts hold the admin role.
 */
async function firstRegistrations(w: RaceWorld): Promise<{ answers: Answer[]; answeredAdmin: number; storedAdmin: number; stored: number }> {
  const store = STORES_UNDER_RACE.find((s) => s.name === w.store);
  if (!store) throw new Error(`no store named ${w.store}`);
  const server = await raceServer(store);
  try {
    const answers = await w.burst(BURST, async (i): Promise<Answer> => {
      const res = await server.request('/api/auth/register', { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': w.address() },
        body: JSON.stringify({ username: `first${i}`, email: `first${i}@example.test`, password: PASSWORD }) });
      return { status: res.status, body: await res.json().catch(() => null) };
    });
    const { items, total } = await server.records.users(BURST);
    const answeredAdmin = answers.filter((a) => a.status === 201 && a.body.user.roles.includes('admin')).length;
    return { answers, answeredAdmin, storedAdmin: items.filter((u) => u.roles.includes('admin')).length, stored: total };
  } finally {
    await server.close();
  }
}

/** Uniqueness under a burst: exactly one of 100 identical creations wins. */
export const uniquenessRaces: Race[] = [
  race('RACE-FIRST-ADMIN', '100 first registrations at once on an empty store: exactly one admin, every account stored', async (w) => {
    const { answers, answeredAdmin, storedAdmin, stored } = await firstRegistrations(w);
    const lost = BURST - stored + Math.abs(answeredAdmin - storedAdmin) + (storedAdmin === 0 ? 1 : 0);
    return outcome(answers, lost, Math.max(0, storedAdmin - 1), `${storedAdmin} admins stored (${answeredAdmin} answered), ${stored} accounts`);
  }, ['transactions']),
  race('RACE-REGISTER-SAME-NAME', '100 registrations of one username at once: exactly one account', async (w) => {
    const answers = await w.burst(BURST, (i) =>
      w.send('POST', '/api/auth/register', { body: { username: 'twin', email: `twin${i}@example.test`, password: PASSWORD }, from: w.address() }));
    return outcome(answers, 0, Math.max(0, count(answers, 201) - 1), `${count(answers, 201)} created`);
  }, ['uniqueIndexes']),
  race('RACE-UPLOAD-SAME-FILE', '100 uploads of one file at once: one book, 99 duplicate_book', async (w) => {
    const owner = await w.fresh('dup');
    const answers = await w.burst(BURST, () => upload(w, owner, 'the very same bytes'));
    const listed = await w.send('GET', `/api/books?q=${encodeURIComponent('the very same bytes')}`, { token: owner.token });
    const stored = listed.body.total as number;
    return outcome(answers, 0, Math.max(0, count(answers, 201) - 1) + Math.max(0, stored - 1), `${count(answers, 201)} created, ${stored} stored`);
  }, ['uniqueIndexes']),
  race('RACE-SHELF-SAME-NAME', '100 shelves of one name at once for one owner: exactly one', async (w) => {
    const owner = await w.fresh('shelver');
    const answers = await w.burst(BURST, () => w.send('POST', '/api/shelves', { token: owner.token, body: { name: 'Night Reading' } }));
    return outcome(answers, 0, Math.max(0, count(answers, 201) - 1), `${count(answers, 201)} created`);
  }, ['uniqueIndexes']),
];

/** Two writers at once on one record: neither change is lost. */
export const lostUpdateRaces: Race[] = [
  race('RACE-SHELF-APPEND', '100 different books added to one shelf at once: all 100 on it, once each', async (w) => {
    const owner = await w.fresh('appender');
    const ids = await books(w, owner, BURST, 'append');
    const shelfId = await shelf(w, owner, 'Everything');
    const answers = await w.burst(BURST, (i) => w.send('PUT', `/api/shelves/${shelfId}/books/${ids[i]}`, { token: owner.token }));
    const after = await w.send('GET', `/api/shelves/${shelfId}`, { token: owner.token });
    const onShelf: string[] = after.body.book_ids;
    const lost = ids.filter((id) => !onShelf.includes(id)).length + (onShelf.length - new Set(onShelf).size);
    return outcome(answers, lost, 0, `${onShelf.length} on the shelf, book_count ${after.body.book_count}`);
  }),
  race('RACE-BOOK-PATCH-PAIRS', '50 books each patched twice at once (title and description): both changes kept', async (w) => {
    const owner = await w.fresh('editor');
    const ids = await books(w, owner, PAIRS, 'patch');
    const answers = await pairs(w, ids, (id, i) => [
      w.send('PATCH', `/api/books/${id}`, { token: owner.token, body: { title: `Title ${i}` } }),
      w.send('PATCH', `/api/books/${id}`, { token: owner.token, body: { description: `Description ${i}` } }),
    ]);
    let lost = 0;
    for (const [i, id] of ids.entries()) {
      const book = (await w.send('GET', `/api/books/${id}`, { token: owner.token })).body;
      if (book.title !== `Title ${i}` || book.description !== `Description ${i}`) lost += 1;
    }
    return outcome(answers, lost, 0, `${lost} of ${PAIRS} books lost a change`);
  }),
  race('RACE-BOOK-COUNTS', '100 book writes at once (50 uploads, 25 tag edits, 25 deletes): every total equals the books it lists', async (w) => {
    const owner = await w.fresh('counted');
    const ids = await books(w, owner, PAIRS, 'kept');
    const answers = await w.burst(BURST, (i) => {
      if (i < PAIRS) return upload(w, owner, `added ${i} ${owner.username}`);
      const id = ids[i - PAIRS]!;
      return i < PAIRS * 1.5 ? w.send('PATCH', `/api/books/${id}`, { token: owner.token, body: { tags: ['Race Tag', 'race tag'] } })
        : w.send('DELETE', `/api/books/${id}`, { token: owner.token });
    });
    const totals: string[] = [];
    let lost = 0;
    for (const filter of ['', 'format=txt', 'tag=RACE%20TAG', 'q=ed', 'q=k', `q=${owner.username}`]) {
      const page = async (n: number) => (await w.send('GET', `/api/books?${filter}&page_size=100&page=${n}`, { token: owner.token })).body;
      const first = await page(1);
      let listed = first.items.length as number;
      for (let n = 2; n <= first.total_pages; n++) listed += (await page(n)).items.length as number;
      lost += Math.abs(first.total - listed) + (filter.startsWith('tag=') ? Math.abs(first.total - PAIRS / 2) : 0);
      totals.push(`${filter || 'all'}: ${first.total} (${listed} listed)`);
    }
    return outcome(answers, lost, 0, totals.join(', '));
  }),
  race('RACE-SHELF-PATCH-PAIRS', '50 shelves each patched twice at once (name and visibility): both changes kept', async (w) => {
    const owner = await w.fresh('curator');
    const ids: string[] = [];
    for (let i = 0; i < PAIRS; i++) ids.push(await shelf(w, owner, `Shelf ${i}`));
    const answers = await pairs(w, ids, (id, i) => [
      w.send('PATCH', `/api/shelves/${id}`, { token: owner.token, body: { name: `Renamed ${i}` } }),
      w.send('PATCH', `/api/shelves/${id}`, { token: owner.token, body: { is_public: true } }),
    ]);
    let lost = 0;
    for (const [i, id] of ids.entries()) {
      const s = (await w.send('GET', `/api/shelves/${id}`, { token: owner.token })).body;
      if (s.name !== `Renamed ${i}` || s.is_public !== true) lost += 1;
    }
    return outcome(answers, lost, 0, `${lost} of ${PAIRS} shelves lost a change`);
  }),
  race('RACE-PASSWORD-VS-DISABLE', "50 password changes each racing an admin's disable: every account stays disabled", async (w) => {
    const people = await Promise.all(Array.from({ length: PAIRS }, () => w.fresh('disabled')));
    const answers = await pairs(w, people, (p) => [
      w.send('PUT', '/api/auth/password', { token: p.token, body: { current_password: PASSWORD, new_password: 'the new passphrase' } }),
      w.send('PATCH', `/api/users/${p.id}`, { token: w.admin.token, body: { disabled: true } }),
    ]);
    let lost = 0;
    for (const p of people) {
      const stored = (await w.send('GET', `/api/users/${p.id}`, { token: w.admin.token })).body;
      const login = await w.send('POST', '/api/auth/login', { body: { username: p.username, password: 'the new passphrase' }, from: w.address() });
      if (stored.disabled !== true || login.status === 200) lost += 1;
    }
    return outcome(answers, lost, 0, `${lost} of ${PAIRS} accounts came back enabled`);
  }),
  race('RACE-PASSWORD-VS-DEMOTE', '50 password changes each racing a demotion to reader: every account stays a reader', async (w) => {
    const people = await Promise.all(Array.from({ length: PAIRS }, () => w.fresh('demoted')));
    const answers = await pairs(w, people, (p) => [
      w.send('PUT', '/api/auth/password', { token: p.token, body: { current_password: PASSWORD, new_password: 'the new passphrase' } }),
      w.send('PATCH', `/api/users/${p.id}`, { token: w.admin.token, body: { roles: ['reader'] } }),
    ]);
    let lost = 0;
    for (const p of people) {
      const stored = (await w.send('GET', `/api/users/${p.id}`, { token: w.admin.token })).body;
      if (JSON.stringify(stored.roles) !== '["reader"]') lost += 1;
    }
    return outcome(answers, lost, 0, `${lost} of ${PAIRS} demotions were undone`);
  }),
  race('RACE-SHELF-ADD-VS-DELETE', '50 books each added to a shelf while being deleted: no shelf entry points at a deleted book', async (w) => {
    const owner = await w.fresh('deleter');
    const ids = await books(w, owner, PAIRS, 'doomed');
    const shelfId = await shelf(w, owner, 'Doomed');
    const answers = await pairs(w, ids, (id) => [
      w.send('PUT', `/api/shelves/${shelfId}/books/${id}`, { token: owner.token }),
      w.send('DELETE', `/api/books/${id}`, { token: owner.token }),
    ]);
    const after = await w.send('GET', `/api/shelves/${shelfId}`, { token: owner.token });
    const listed = await w.send('GET', `/api/shelves/${shelfId}/books?page_size=100`, { token: owner.token });
    const dangling = (after.body.book_ids as string[]).length + Math.abs((after.body.book_count as number) - listed.body.total);
    return outcome([...answers, after, listed], dangling, 0, `${after.body.book_ids.length} dangling entries, book_count ${after.body.book_count}`);
  }, ['transactions']),
  race('RACE-PROGRESS-BURST', '100 progress writes at once by one reader on one book: one whole state, equal to one of them', async (w) => {
    const owner = await w.fresh('progress');
    const [bookId] = await books(w, owner, 1, 'progress');
    const writes = Array.from({ length: BURST }, (_, i) => ({ percentage: (i + 1) / (BURST + 1), locator: `loc-${i}`, device_id: `dev-${i}` }));
    const answers = await w.burst(BURST, (i) => w.send('PUT', `/api/books/${bookId}/progress`, { token: owner.token, body: writes[i] }));
    const after = (await w.send('GET', `/api/books/${bookId}/progress`, { token: owner.token })).body;
    const listed = await w.send('GET', '/api/books?status=reading&page_size=100', { token: owner.token });
    const whole = writes.some((x) => x.percentage === after.percentage && x.locator === after.locator && x.device_id === after.device_id);
    const lost = (whole ? 0 : 1) + Math.abs(listed.body.total - 1);
    return outcome([...answers, listed], lost, 0, `state ${after.locator}, listed ${listed.body.total} time(s)`);
  }),
  race('RACE-KOSYNC-PUSH-BURST', '100 KOReader pushes at once, for a Stacks book and for an unknown document: each ends one whole pushed position', async (w) => {
    const owner = await w.fresh('kosyncpush');
    const [bookId] = await books(w, owner, 1, 'kosync');
    const key = (await w.send('POST', '/api/auth/keys', { token: owner.token, body: { name: 'kobo' } })).body.key as string;
    // A file under 1 KiB is one sample: its partial MD5 is the MD5 of the whole file.
    const documents = [koreaderKey(`kosync 0 ${owner.username}\n`), 'f'.repeat(32)];
    const pushes = Array.from({ length: BURST }, (_, i) => ({
      document: documents[i % 2]!, progress: `/body/DocFragment[${i}]`, percentage: (i + 1) / (BURST + 1), device: `dev ${i}`, device_id: `id-${i}`,
    }));
    const headers = koreaderHeaders(owner.username, key);
    const answers = await w.burst(BURST, (i) => w.send('PUT', '/kosync/syncs/progress', { headers, body: pushes[i], from: w.address() }));
    const accepted = pushes.filter((_, i) => answers[i]!.status === 200);
    // 200, or 429 once the burst's own reservations reached the account limit (successes give back only their own).
    let lost = answers.every((a) => a.status === 200 || a.status === 429) ? 0 : 1;
    // Read from the store: the burst may have left the account blocked for kosync for a while.
    const stored = [await w.progressOf(owner.id, bookId!), await w.syncDocumentOf(owner.id, documents[1]!)];
    for (const [n, state] of stored.entries()) {
      const mine = accepted.filter((p) => p.document === documents[n]);
      const whole = mine.some((p) => p.percentage === state?.percentage && p.device_id === state?.deviceId
        && p.progress === (state && 'locator' in state ? state.locator : state?.progress));
      if (mine.length > 0 && !whole) lost += 1;
    }
    return outcome(answers, lost, 0, `${accepted.length} pushes accepted; stored ${JSON.stringify(stored.map((x) => x?.percentage ?? null))}`);
  }),
  race('RACE-PROGRESS-VS-DELETE', '50 books each given progress while being deleted: no progress record outlives its book', async (w) => {
    const owner = await w.fresh('progdel');
    const ids = await books(w, owner, PAIRS, 'progress doomed');
    const answers = await pairs(w, ids, (id) => [
      w.send('PUT', `/api/books/${id}/progress`, { token: owner.token, body: { percentage: 0.5 } }),
      w.send('DELETE', `/api/books/${id}`, { token: owner.token }),
    ]);
    const left = (await Promise.all(ids.map((id) => w.progressOf(owner.id, id)))).filter((p) => p !== null).length;
    const puts = answers.filter((_, i) => i % 2 === 0);
    return outcome(answers, left, 0, `${left} records outlived their book; PUT statuses ${JSON.stringify(tally(puts))}`);
  }),
  race('RACE-LAST-ADMIN', 'two admins demote each other at once, 20 times: an active admin always remains', async (w) => {
    let lost = 0;
    const answers: Answer[] = [];
    const isAdmin = async (c: Caller) => ((await w.send('GET', '/api/auth/me', { token: c.token })).body?.roles ?? []).includes('admin');
    for (let round = 0; round < 20 && lost === 0; round++) {
      const other = await w.fresh('coadmin');
      await w.send('PATCH', `/api/users/${other.id}`, { token: w.admin.token, body: { roles: ['admin'] } });
      answers.push(...await pairs(w, [other], () => [
        w.send('PATCH', `/api/users/${other.id}`, { token: w.admin.token, body: { roles: ['user'] } }),
        w.send('PATCH', `/api/users/${w.admin.id}`, { token: other.token, body: { roles: ['user'] } }),
      ]));
      const [mine, theirs] = [await isAdmin(w.admin), await isAdmin(other)];
      if (!mine && !theirs) lost += 1;
      // Leave exactly one admin (the world's) for the next round.
      if (!mine && theirs) await w.send('PATCH', `/api/users/${w.admin.id}`, { token: other.token, body: { roles: ['admin'] } });
      if (theirs) await w.send('PATCH', `/api/users/${other.id}`, { token: w.admin.token, body: { roles: ['user'] } });
    }
    return outcome(answers, lost, 0, lost ? 'no active admin remained' : 'an admin remained every round');
  }, ['transactions']),
];

/** Races that need every push to reach the store: run with login policies loose enough that a burst of one account's pushes is not throttled. */
export const kosyncCapRaces: readonly Race[] = [
  race('RACE-KOSYNC-DOCUMENT-CAP', '120 KOReader pushes of new documents at once by a reader who keeps 10,000: never more than 10,000 stay, the newest ones', async (w) => {
    const owner = await w.fresh('kosynccap');
    const key = (await w.send('POST', '/api/auth/keys', { token: owner.token, body: { name: 'kobo' } })).body.key as string;
    const doc = (prefix: string, i: number) => `${prefix}${i.toString(16).padStart(31, '0')}`;
    const long = new Date('2020-01-01T00:00:00Z').getTime();
    const history = Array.from({ length: SYNC_DOCUMENTS_PER_USER }, (_, i) => ({
      userId: owner.id, document: doc('a', i), progress: '1', percentage: 0.1, device: 'old', deviceId: 'old', updatedAt: new Date(long + i * 1000),
    }));
    await w.seedSyncDocuments(history);
    const headers = koreaderHeaders(owner.username, key);
    const answers = await w.burst(120, (i) => w.send('PUT', '/kosync/syncs/progress', {
      headers, body: { document: doc('b', i), progress: String(i), percentage: 0.5, device: 'Kobo', device_id: 'K1' }, from: w.address(),
    }));
    const pushed = Array.from({ length: 120 }, (_, i) => doc('b', i)).filter((_, i) => answers[i]!.status === 200);
    const held = async (ids: string[]) => (await Promise.all(ids.map((d) => w.syncDocumentOf(owner.id, d)))).filter((r) => r !== null).length;
    const newKept = await held(pushed);
    const total = (await w.countSyncDocuments(owner.id)) ?? newKept + (await held(history.map((h) => h.document)));
    const oldKept = total - newKept;
    // Every push must be accepted and, newer than the whole history, still be there; the history is what gives way.
    const lost = (120 - pushed.length) + (pushed.length - newKept) + Math.max(0, SYNC_DOCUMENTS_PER_USER - total);
    return outcome(answers, lost, Math.max(0, total - SYNC_DOCUMENTS_PER_USER),
      `${pushed.length} pushes accepted (${JSON.stringify(tally(answers))}); kept ${oldKept} old + ${newKept} new = ${total}`);
  }),
];
