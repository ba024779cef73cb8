import { count, limitOutcome, race, type Race } from './race.js';
import type { Answer } from './race-world.js';

const BURST = 150;
const ADDRESS_LIMIT = 100;
const DEVICE_LIMIT = 10;

const guess = (i: number) => `/kobo/${String(i).padStart(43, 'K')}/v1/library/sync`;

/** Kobo sync URLs under bursts: guesses are counted before any lookup; a deleted device stops answering at once. */
export const koboRaces: Race[] = [
  race('RACE-KOBO-ADDRESS', '150 guessed sync URLs at once from one address: at most 100 reach the lookup', async (w) => {
    const from = w.address();
    const answers = await w.burst(BURST, (i) => w.send('GET', guess(i), { headers: { 'x-kobo-deviceid': `dev-address-${i}` }, from }));
    // 401 reached the lookup; 429 was refused before it.
    return limitOutcome(answers, count(answers, 401, 200), ADDRESS_LIMIT);
  }),
  race('RACE-KOBO-DEVICE', '150 guessed sync URLs at once from 150 addresses with one e-reader id: at most 10 reach the lookup', async (w) => {
    const answers = await w.burst(BURST, (i) => w.send('GET', guess(i), { headers: { 'x-kobo-deviceid': 'one-ereader' }, from: w.address() }));
    return limitOutcome(answers, count(answers, 401, 200), DEVICE_LIMIT);
  }),
  race('RACE-KOBO-REVOKE', '100 syncs at once while the device is deleted: each 200 or 401, and none served after the delete answered', async (w) => {
    const owner = await w.fresh('koborace');
    const created = await w.send('POST', '/api/auth/kobo', { token: owner.token, body: { name: 'racing kobo' } });
    const base = new URL(created.body.url as string).pathname;
    let deletedAt = Number.POSITIVE_INFINITY;
    const started: number[] = [];
    const answers: Answer[] = await w.burst(100, async (i) => {
      if (i === 50) {
        const res = await w.send('DELETE', `/api/auth/kobo/${created.body.id}`, { token: owner.token });
        deletedAt = performance.now();
        return res;
      }
      started.push(performance.now());
      return w.send('GET', `${base}/v1/library/sync`, { headers: { 'x-kobo-deviceid': 'racing' } });
    });
    const after = await w.burst(20, () => w.send('GET', `${base}/v1/library/sync`, { headers: { 'x-kobo-deviceid': 'racing-after' } }));
    const syncs = answers.filter((_, i) => i !== 50);
    const unexpected = syncs.filter((a) => a.status !== 200 && a.status !== 401 && a.status !== 429).length;
    const servedAfter = after.filter((a) => a.status === 200).length;
    return {
      limitsExceeded: servedAfter + unexpected, lostUpdates: 0, fiveXx: [...answers, ...after].filter((a) => a.status >= 500).length,
      note: `delete ${answers[50]!.status}; during ${JSON.stringify(syncs.reduce<Record<number, number>>((t, a) => ({ ...t, [a.status]: (t[a.status] ?? 0) + 1 }), {}))}; after ${after.map((a) => a.status).join(',')}; deleted ${Number.isFinite(deletedAt)}`,
    };
  }),
];
