import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import sharp from 'sharp';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BookRepository } from '../../src/application/ports.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { as } from '../support/acting-as.js';
import { upload } from '../support/books.js';
import { aBook, instant } from '../support/builders.js';
import { FakeClock } from '../support/clock.js';
import { buildEpub } from '../support/fixtures/index.js';
import { addKobo, itemsByKind, koboCall, syncRound, type KoboDeviceUrl } from '../support/kobo.js';
import { koreaderHeaders } from '../support/koreader.js';
import { referencePartialMd5, readingBuffer } from '../support/koreader-reference.js';
import { mongoTestServer } from '../support/mongo-server.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

const LIBRARY = 1000;
let databases = 0;

/** memory, SQLite, and the MongoDB test server (the CongoDB stand-in here). */
const STORES = [
  { name: 'memory', env: async () => ({}) },
  { name: 'sqlite', env: async (dir: string) => ({ DATABASE_URL: '', DATA_DIR: dir }) },
  { name: 'mongo', env: async (dir: string) => ({ DATABASE_URL: (await mongoTestServer()).database(`stacks_kobo_${process.pid}_${++databases}`), DATA_DIR: dir }) },
];

/** Reads the entries of a ZIP in memory. */
async function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.fromBuffer(bytes, { lazyEntries: true }, (e, z) => (e ? reject(e) : resolve(z))));
  const entries = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => zip.openReadStream(entry, async (e, s) => {
      if (e) return reject(e);
      const chunks: Buffer[] = [];
      for await (const c of s) chunks.push(c as Buffer);
      entries.set(entry.fileName, Buffer.concat(chunks));
      zip.readEntry();
    }));
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return entries;
}

describe.each(STORES)('Kobo sync replay ($name)', ({ env }) => {
  let dir: string;
  let t: TestApp;
  let clock: FakeClock;
  let alice: Session;
  let kobo: KoboDeviceUrl;
  let token: string;
  let uploaded: { id: string; epub: Buffer };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-kobo-'));
    clock = new FakeClock();
    t = await startTestApp(await env(dir), { clock });
    await registerUser(t.app, 'admin');
    alice = await registerUser(t.app, 'alice');
    const books = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
    for (let i = 0; i < LIBRARY; i++) await books.create(aBook({ id: `b${String(i).padStart(4, '0')}`, format: i % 2 ? 'epub' : 'pdf', createdAt: instant(i) }));
    for (let i = 0; i < 5; i++) await books.create(aBook({ id: `m${i}`, format: 'mobi' }));
    kobo = await addKobo(t.app, alice);
  }, 180_000);
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers initialization with a Resources map whose sync and image templates point back at the sync URL', async () => {
    const res = await koboCall(t.app, kobo, 'get', '/v1/initialization');
    expect(res.status).toBe(200);
    expect(res.headers['x-kobo-apitoken']).toBe('e30=');
    const r = res.body.Resources;
    expect(r.library_sync).toMatch(new RegExp(`${kobo.base}/v1/library/sync$`));
    expect(r.image_url_template).toMatch(new RegExp(`${kobo.base}/v1/books/\\{ImageId\\}/thumbnail/\\{Width\\}/\\{Height\\}/false/image.jpg$`));
    expect(r.image_url_quality_template).toMatch(/\{ImageId\}\/thumbnail\/\{Width\}\/\{Height\}\/\{Quality\}\/\{IsGreyscale\}\/image.jpg$/);
    expect(r.reading_state).toMatch(new RegExp(`${kobo.base}/v1/library/\\{Ids\\}/state$`));
    expect(JSON.stringify(r)).not.toContain('storeapi.kobo.com');
  });

  it('gives the device tokens at /v1/auth/device, echoing its UserKey', async () => {
    const res = await koboCall(t.app, kobo, 'post', '/v1/auth/device').send({ AffiliateName: 'Kobo', AppVersion: '4.41.23145', ClientKey: 'abc', DeviceId: 'dev', PlatformId: 'p', UserKey: 'the-user-key' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ TokenType: 'Bearer', UserKey: 'the-user-key' });
    expect(res.body.AccessToken).toMatch(/^\S{20,}$/);
    expect(res.body.RefreshToken).not.toBe(res.body.AccessToken);
  });

  it(`syncs a first sync of ${LIBRARY} books over several pages, each book once, as NewEntitlement, other formats left out`, async () => {
    const round = await syncRound(t.app, kobo);
    expect(round.pages).toBeGreaterThanOrEqual(10);
    const kinds = itemsByKind(round.items);
    expect(new Set(kinds.map(([k]) => k))).toEqual(new Set(['NewEntitlement']));
    const ids = kinds.map(([, id]) => id);
    expect(ids).toHaveLength(LIBRARY);
    expect(new Set(ids).size).toBe(LIBRARY);
    expect(ids.some((id) => id.startsWith('m'))).toBe(false);
    const pdf = round.items.find((i) => i.NewEntitlement.BookEntitlement.Id === 'b0000')!.NewEntitlement;
    expect(pdf.BookMetadata.DownloadUrls[0]).toMatchObject({ Format: 'PDF', Platform: 'Generic' });
    expect(pdf.ReadingState.StatusInfo.Status).toBe('ReadyToRead');
    token = round.token;
  });

  it('answers an incremental sync with nothing new with an empty array and no continue', async () => {
    const res = await koboCall(t.app, kobo, 'get', '/v1/library/sync').set('x-kobo-synctoken', token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers['x-kobo-sync']).toBeUndefined();
    token = String(res.headers['x-kobo-synctoken']);
  });

  it('sends an uploaded EPUB as a NewEntitlement with a KEPUB download, and its metadata as an array of one', async () => {
    clock.advance(60_000);
    const epub = await buildEpub({ title: 'Uploaded Later' });
    const res = await upload(t.app, alice, epub, 'later.epub');
    expect(res.status).toBe(201);
    uploaded = { id: res.body.id, epub };
    const round = await syncRound(t.app, kobo, token);
    expect(itemsByKind(round.items)).toEqual([['NewEntitlement', uploaded.id]]);
    const entitlement = round.items[0]!.NewEntitlement;
    expect(entitlement.BookMetadata).toMatchObject({ Title: 'Uploaded Later', EntitlementId: uploaded.id, CoverImageId: uploaded.id });
    expect(entitlement.BookMetadata.DownloadUrls[0]).toMatchObject({ Format: 'KEPUB', Url: expect.stringMatching(new RegExp(`${kobo.base}/v1/books/${uploaded.id}/file$`)) });
    token = round.token;
    const metadata = await koboCall(t.app, kobo, 'get', `/v1/library/${uploaded.id}/metadata`);
    expect(metadata.status).toBe(200);
    expect(Array.isArray(metadata.body)).toBe(true);
    expect(metadata.body).toHaveLength(1);
    expect(metadata.body[0]).toMatchObject({ EntitlementId: uploaded.id, Title: 'Uploaded Later', DownloadUrls: [expect.objectContaining({ Format: 'KEPUB' })] });
  });

  it('downloads the EPUB as a KEPUB: koboSpans in every chapter, the cover image byte for byte, the original kept', async () => {
    const res = await koboCall(t.app, kobo, 'get', `/v1/books/${uploaded.id}/file`).buffer(true).parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/epub+zip');
    expect(res.headers['content-disposition']).toContain('.kepub.epub');
    const kepub = await unzip(res.body as Buffer);
    const original = await unzip(uploaded.epub);
    expect([...kepub.keys()][0]).toBe('mimetype');
    expect(kepub.get('OEBPS/text/ch1.xhtml')!.toString()).toMatch(/<span class="koboSpan" id="kobo\.1\.1">Hello\.<\/span>/);
    expect(kepub.get('OEBPS/images/cover.png')).toEqual(original.get('OEBPS/images/cover.png'));
    const download = await as(t.app, alice).get(`/api/books/${uploaded.id}/file`).buffer(true).parse((r, cb) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    expect(Buffer.compare(download.body as Buffer, uploaded.epub)).toBe(0);
  });

  it('serves the cover as a JPEG fitting the template size, generated once', async () => {
    const thumb = await koboCall(t.app, kobo, 'get', `/v1/books/${uploaded.id}/thumbnail/355/530/false/image.jpg`).buffer(true);
    expect(thumb.status).toBe(200);
    expect(thumb.headers['content-type']).toBe('image/jpeg');
    const meta = await sharp(thumb.body as Buffer).metadata();
    expect(meta.format).toBe('jpeg');
    const again = await koboCall(t.app, kobo, 'get', `/v1/books/${uploaded.id}/thumbnail/355/530/60/true/image.jpg`).buffer(true);
    expect(again.status).toBe(200);
    expect((await sharp(again.body as Buffer).metadata()).channels).toBe(1);
    expect((await koboCall(t.app, kobo, 'get', '/v1/books/b0001/thumbnail/355/530/false/image.jpg')).status).toBe(404);
  });

  it('sends a deleted book as a ChangedEntitlement with IsRemoved', async () => {
    clock.advance(60_000);
    const res = await request(t.app).delete(`/api/books/${uploaded.id}`).set(bearer(alice.token));
    expect(res.status).toBe(204);
    const round = await syncRound(t.app, kobo, token);
    expect(itemsByKind(round.items)).toEqual([['ChangedEntitlement', uploaded.id]]);
    expect(round.items[0]!.ChangedEntitlement.BookEntitlement.IsRemoved).toBe(true);
    token = round.token;
  });

  it('sends shelves as tags: NewTag with its items, ChangedTag on a rename, DeletedTag on a delete', async () => {
    clock.advance(60_000);
    const shelf = await as(t.app, alice).post('/api/shelves', { name: 'Night reading', book_ids: ['b0001', 'b0002', 'm0'] });
    expect(shelf.status).toBe(201);
    let round = await syncRound(t.app, kobo, token);
    expect(itemsByKind(round.items)).toEqual([['NewTag', shelf.body.id]]);
    expect(round.items[0]!.NewTag.Tag).toMatchObject({ Name: 'Night reading', Type: 'UserTag',
      Items: [{ RevisionId: 'b0001', Type: 'ProductRevisionTagItem' }, { RevisionId: 'b0002', Type: 'ProductRevisionTagItem' }] });
    await as(t.app, alice).patch(`/api/shelves/${shelf.body.id}`, { name: 'Late reading' }).expect(200);
    round = await syncRound(t.app, kobo, round.token);
    expect(itemsByKind(round.items)).toEqual([['ChangedTag', shelf.body.id]]);
    expect(round.items[0]!.ChangedTag.Tag.Name).toBe('Late reading');
    await as(t.app, alice).del(`/api/shelves/${shelf.body.id}`).expect(204);
    round = await syncRound(t.app, kobo, round.token);
    expect(itemsByKind(round.items)).toEqual([['DeletedTag', shelf.body.id]]);
    token = round.token;
  });

  it('sends a KOReader update as a ChangedReadingState: percentage and status, no Kobo location', async () => {
    clock.advance(60_000);
    const epub = await buildEpub({ title: 'Read on KOReader' });
    const book = await upload(t.app, alice, epub, 'koreader.epub');
    const key = (await as(t.app, alice).post('/api/auth/keys', { name: 'koreader' })).body.key as string;
    let round = await syncRound(t.app, kobo, token);
    expect(itemsByKind(round.items)).toEqual([['NewEntitlement', book.body.id]]);
    clock.advance(60_000);
    const pushed = await request(t.app).put('/kosync/syncs/progress').set(koreaderHeaders('alice', key))
      .send({ document: referencePartialMd5(readingBuffer(epub)), progress: '/body/DocFragment[2]/body/p[3]/text().0', percentage: 0.42, device: 'KOReader', device_id: 'K1' });
    expect(pushed.status).toBe(200);
    round = await syncRound(t.app, kobo, round.token);
    expect(itemsByKind(round.items)).toEqual([['ChangedReadingState', book.body.id]]);
    const state = round.items[0]!.ChangedReadingState.ReadingState;
    expect(state.StatusInfo.Status).toBe('Reading');
    expect(state.CurrentBookmark.ProgressPercent).toBe(42);
    expect(state.CurrentBookmark.Location).toBeUndefined();
    token = round.token;
  });

  it("keeps a Kobo state PUT as the book's progress, answers it back from GET state, and never echoes it to the same device", async () => {
    clock.advance(60_000);
    const put = await koboCall(t.app, kobo, 'put', '/v1/library/b0003/state').send({
      ReadingStates: [{
        EntitlementId: 'b0003', LastModified: '2026-11-22T10:05:00Z', PriorityTimestamp: '2026-11-22T10:05:00Z',
        StatusInfo: { LastModified: '2026-11-22T10:05:00Z', Status: 'Reading', TimesStartedReading: 1 },
        Statistics: { LastModified: '2026-11-22T10:05:00Z', SpentReadingMinutes: 12, RemainingTimeMinutes: 80 },
        CurrentBookmark: {
          LastModified: '2026-11-22T10:05:00Z', ProgressPercent: 37, ContentSourceProgressPercent: 54,
          Location: { Value: 'kobo.12.4', Type: 'KoboSpan', Source: 'OEBPS/text/ch3.xhtml' },
        },
      }],
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ RequestResult: 'Success', UpdateResults: [{ EntitlementId: 'b0003', CurrentBookmarkResult: { Result: 'Success' }, StatusInfoResult: { Result: 'Success' } }] });
    const rest = await as(t.app, alice).get('/api/books/b0003/progress');
    expect(rest.body).toMatchObject({ status: 'reading', percentage: 0.37, locator: expect.stringMatching(/^kobo:/) });
    const state = await koboCall(t.app, kobo, 'get', '/v1/library/b0003/state');
    expect(state.status).toBe(200);
    expect(state.body).toHaveLength(1);
    expect(state.body[0].CurrentBookmark).toMatchObject({ ProgressPercent: 37, ContentSourceProgressPercent: 54, Location: { Value: 'kobo.12.4', Type: 'KoboSpan', Source: 'OEBPS/text/ch3.xhtml' } });
    expect(state.body[0].StatusInfo.Status).toBe('Reading');
    const round = await syncRound(t.app, kobo, token);
    expect(round.items).toEqual([]);
    const other = await addKobo(t.app, alice, { name: 'Second Kobo' });
    const first = await syncRound(t.app, other);
    const b3 = first.items.find((i) => i.NewEntitlement?.BookEntitlement.Id === 'b0003')!;
    expect(b3.NewEntitlement.ReadingState.CurrentBookmark.Location).toEqual({ Value: 'kobo.12.4', Type: 'KoboSpan', Source: 'OEBPS/text/ch3.xhtml' });
    token = round.token;
  });

  it('archives a book for this device only: DELETE /v1/library/{id} is 204, the book stays, the device gets no more of it', async () => {
    const res = await koboCall(t.app, kobo, 'delete', '/v1/library/b0005');
    expect(res.status).toBe(204);
    expect((await as(t.app, alice).get('/api/books/b0005')).status).toBe(200);
    clock.advance(60_000);
    await as(t.app, alice).patch('/api/books/b0005', { title: 'Renamed' });
    const round = await syncRound(t.app, kobo, token);
    expect(itemsByKind(round.items).map(([, id]) => id)).not.toContain('b0005');
  });

  it('answers store calls it does not serve with the empty answers a Kobo accepts, never leaving the machine', async () => {
    const profile = await koboCall(t.app, kobo, 'get', '/v1/user/profile');
    expect(profile.status).toBe(200);
    expect(profile.body).toEqual({});
    const benefits = await koboCall(t.app, kobo, 'get', '/v1/user/loyalty/benefits');
    expect(benefits.body).toEqual({ Benefits: {} });
    const tests = await koboCall(t.app, kobo, 'post', '/v1/analytics/gettests').send({});
    expect(tests.body).toMatchObject({ Result: 'Success', TestKey: '5a4c3f2e-1d0b-4a9c-8e7f-6d5c4b3a2f1e' });
  });
});
