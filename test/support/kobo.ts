import type { Express } from 'express';
import request from 'supertest';
import { bearer, type Session } from './test-app.js';

/**
 * What a Kobo e-reader sends, as the peers' code documents it (Calibre-Web cps/kobo.py, Komga
 * KoboController.kt, KoboHeaders.kt): its user agent, its device id and user key headers, and the sync
 * token it was last given.
 */
export const KOBO_HEADERS = {
  'user-agent': 'Mozilla/5.0 (Linux; U; Android 2.0; en-us;) AppleWebKit/538.1 (KHTML, like Gecko) Version/4.0 Mobile Safari/538.1 (Kobo Touch 0387/4.41.23145)',
  'x-kobo-deviceid': '7c1d5e9a0b2f4c3e8d6a1b0c9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f',
  'x-kobo-userkey': '5a4c3f2e-1d0b-4a9c-8e7f-6d5c4b3a2f1e',
  'x-kobo-appversion': '4.41.23145',
  'x-kobo-platformid': '00000000-0000-0000-0000-000000000387',
  accept: 'application/json',
} as const;

export interface KoboDeviceUrl {
  readonly id: string;
  readonly url: string;
  /** The path the device calls under: `/kobo/{secret}`. */
  readonly base: string;
}

/** Adds a Kobo device for the session (POST /api/auth/kobo) and returns its sync URL. */
export async function addKobo(app: Express, session: Session, body: object = { name: 'Kobo Libra Colour' }): Promise<KoboDeviceUrl> {
  const res = await request(app).post('/api/auth/kobo').set(bearer(session.token)).send(body);
  if (res.status !== 201) throw new Error(`kobo device: ${res.status} ${res.text}`);
  return { id: res.body.id, url: res.body.url, base: new URL(res.body.url).pathname };
}

/** One request as the device sends it to its sync URL. */
export function koboCall(app: Express, device: Pick<KoboDeviceUrl, 'base'>, method: 'get' | 'put' | 'post' | 'delete', path: string) {
  return request(app)[method](`${device.base}${path}`).set(KOBO_HEADERS);
}

export interface SyncRound {
  readonly pages: number;
  readonly items: Array<Record<string, any>>;
  readonly token: string;
}

/** Syncs until the device is told no more pages follow (`x-kobo-sync: continue` absent), as a Kobo does. */
export async function syncRound(app: Express, device: Pick<KoboDeviceUrl, 'base'>, token?: string, maxPages = 10_000): Promise<SyncRound> {
  const items: Array<Record<string, any>> = [];
  let pages = 0;
  for (;;) {
    const req = koboCall(app, device, 'get', '/v1/library/sync');
    if (token) req.set('x-kobo-synctoken', token);
    const res = await req;
    if (res.status !== 200) throw new Error(`sync: ${res.status} ${res.text}`);
    pages += 1;
    items.push(...(res.body as Array<Record<string, any>>));
    token = res.headers['x-kobo-synctoken'] as string;
    if (res.headers['x-kobo-sync'] !== 'continue') return { pages, items, token };
    if (pages >= maxPages) throw new Error('sync never ended');
  }
}

/** The kind of each sync item (`NewEntitlement`, `ChangedReadingState`, ...) with its book or tag id. */
export function itemsByKind(items: ReadonlyArray<Record<string, any>>): Array<[string, string]> {
  return items.map((item) => {
    const [kind, value] = Object.entries(item)[0]!;
    const id = value.BookEntitlement?.Id ?? value.ReadingState?.EntitlementId ?? value.Tag?.Id ?? value.EntitlementId;
    return [kind, String(id)];
  });
}
