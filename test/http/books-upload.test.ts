import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCbz, buildEpub, buildFb2, buildMobi, buildPdf, tinyPng } from '../support/fixtures/index.js';
import { storedFiles, upload } from '../support/books.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

let t: TestApp;
let admin: Session;
let alice: Session;
beforeAll(async () => {
  t = await startTestApp();
  admin = await registerUser(t.app, 'admin');
  alice = await registerUser(t.app, 'alice');
});
afterAll(() => t.close());

/** Runs a request and checks it left the stored files as they were, with no temp file. */
async function leavesNothing<T>(action: () => Promise<T>): Promise<T> {
  const before = await storedFiles(t);
  const result = await action();
  expect(await storedFiles(t)).toEqual({ books: before.books, tmp: [] });
  return result;
}

const MOBI_EXTH: Array<[number, string]> = [
  [100, 'Frank Herbert'],
  [101, 'Chilton Books'],
  [104, '978-0-306-40615-7'],
  [105, 'Science Fiction'],
  [106, '1965-08-01'],
  [503, 'Dune'],
  [524, 'en'],
];

describe('POST /api/books reads each format', () => {
  it('EPUB: OPF metadata field by field, the cover, the Location header and the stored blobs', async () => {
    const before = await storedFiles(t);
    const res = await upload(t.app, alice, await buildEpub(), 'left-hand.epub');
    expect(res.status).toBe(201);
    const id = res.body.id as string;
    expect(res.headers.location).toBe(`/api/books/${id}`);
    expect(res.body).toEqual({
      id,
      title: 'The Left Hand of Darkness',
      authors: ['Ursula K. Le Guin', 'Second & Author'],
      description: 'A classic novel.\n\nSecond para & more.',
      publisher: 'Ace Books',
      language: 'en-GB',
      published: '1969-03-01',
      isbn: '9780306406157',
      tags: ['Science fiction', 'Gender'],
      series: 'Hainish Cycle',
      series_index: 4,
      format: 'epub',
      file_name: 'left-hand.epub',
      file_size: expect.any(Number),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      has_cover: true,
      cover_url: `/api/books/${id}/cover`,
      download_url: `/api/books/${id}/file`,
      uploaded_by: { id: alice.user.id, username: 'alice' },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await storedFiles(t)).toEqual({ books: [...before.books, `${id}.book`, `${id}.cover`].sort(), tmp: [] });
    const read = await request(t.app).get(`/api/books/${id}`).set(bearer(admin.token));
    expect(read.body).toEqual(res.body);
  });

  it('PDF: the Info dictionary, no cover', async () => {
    const pdf = buildPdf({ info: { Title: 'Structure and Interpretation', Author: 'Harold Abelson & Gerald Jay Sussman', Keywords: 'lisp, scheme' } });
    const res = await upload(t.app, alice, pdf, 'sicp.pdf');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      format: 'pdf', title: 'Structure and Interpretation', authors: ['Harold Abelson', 'Gerald Jay Sussman'], tags: ['lisp', 'scheme'],
      has_cover: false, cover_url: null, file_size: pdf.length, description: null, series: null, series_index: null,
    });
  });

  it('CBZ: ComicInfo.xml and the first page as cover', async () => {
    const res = await upload(t.app, alice, await buildCbz(), 'spidey.cbz');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      format: 'cbz', title: 'The Night Gwen Stacy Died', series: 'The Amazing Spider-Man', series_index: 121,
      authors: ['Gerry Conway', 'Stan Lee'], publisher: 'Marvel', published: '1973-06-01', language: 'en', has_cover: true,
    });
  });

  it('FB2: the description block, Cyrillic intact', async () => {
    const res = await upload(t.app, alice, buildFb2(), 'war.fb2');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      format: 'fb2', title: 'Война и мир', authors: ['Лев Николаевич Толстой', 'anon'], language: 'ru',
      series: 'Собрание сочинений', series_index: 5, isbn: '528000152X', published: '1983', has_cover: true,
    });
  });

  it('MOBI: EXTH records and the cover record', async () => {
    const res = await upload(t.app, alice, buildMobi({ exth: MOBI_EXTH }), 'dune.mobi');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      format: 'mobi', title: 'Dune', authors: ['Frank Herbert'], publisher: 'Chilton Books', isbn: '9780306406157',
      tags: ['Science Fiction'], published: '1965-08-01', language: 'en', has_cover: true,
    });
  });

  it('plain text: metadata from the file name `Author - Title.txt`, else `Title.txt`', async () => {
    const text = Buffer.from('Chapter 1\n\nIt was a dark and stormy night.\n'.repeat(20));
    const res = await upload(t.app, alice, text, 'Mary Shelley - Frankenstein.txt');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ format: 'txt', title: 'Frankenstein', authors: ['Mary Shelley'], tags: [], file_name: 'Mary Shelley - Frankenstein.txt' });
    const other = await upload(t.app, alice, Buffer.from('Another text.\n'.repeat(10)), 'Just_A_Title.txt');
    expect(other.body).toMatchObject({ title: 'Just A Title', authors: [] });
  });

  it('decides the type by content and fixes the display extension to match', async () => {
    const res = await upload(t.app, alice, buildPdf({ info: { Title: 'Really a PDF' } }), 'looks-like.epub');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ format: 'pdf', file_name: 'looks-like.pdf' });
  });
});

describe('POST /api/books overrides', () => {
  it('lets the text parts win over the file, in either order around the file part', async () => {
    const epub = await buildEpub({ title: 'Overridden' });
    const before = await upload(t.app, alice, epub, 'x.epub', {
      title: '  My Title ', authors: 'A One, B Two ,', tags: 'x,y', series: 'S', series_index: '2.5',
      description: 'Mine.', language: 'fr', isbn: '0-306-40615-2', published: '2001-02',
    });
    expect(before.status).toBe(201);
    expect(before.body).toMatchObject({
      title: 'My Title', authors: ['A One', 'B Two'], tags: ['x', 'y'], series: 'S', series_index: 2.5,
      description: 'Mine.', language: 'fr', isbn: '0306406152', published: '2001-02', publisher: 'Ace Books',
    });
    const after = await request(t.app)
      .post('/api/books')
      .set(bearer(alice.token))
      .attach('file', buildPdf({ info: { Title: 'From file' } }), 'p.pdf')
      .field('title', 'Sent after the file');
    expect(after.status).toBe(201);
    expect(after.body.title).toBe('Sent after the file');
  });

  it('treats empty text parts as not given', async () => {
    const res = await upload(t.app, alice, await buildEpub({ title: 'Kept Title' }), 'x.epub', { title: '', authors: '' });
    expect(res.body).toMatchObject({ title: 'Kept Title', authors: ['Ursula K. Le Guin', 'Second & Author'] });
  });

  it('refuses invalid override values with 422 naming the field, leaving nothing behind', async () => {
    for (const [field, value] of [['published', '2019-13'], ['series_index', '-1'], ['isbn', '123'], ['language', 'not a tag!'], ['title', 'x'.repeat(1001)]]) {
      const res = await leavesNothing(async () => upload(t.app, alice, await buildEpub({ title: `Book ${field}` }), 'x.epub', { [field!]: value! }));
      expect(res.status, field).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ location: 'body', field });
    }
  });
});

describe('POST /api/books refusals', () => {
  it('answers 409 duplicate_book with the existing id for the same file, and keeps one copy', async () => {
    const epub = await buildEpub({ title: 'Twice' });
    const first = await upload(t.app, alice, epub, 'a.epub');
    expect(first.status).toBe(201);
    const second = await leavesNothing(() => upload(t.app, admin, epub, 'b.epub'));
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 'duplicate_book', book_id: first.body.id });
  });

  it('is 403 for a reader, and stores nothing', async () => {
    const reader = await registerUser(t.app, 'reader');
    await request(t.app).patch(`/api/users/${reader.user.id}`).set(bearer(admin.token)).send({ roles: ['reader'] }).expect(200);
    const res = await leavesNothing(async () => upload(t.app, reader, await buildEpub({ title: 'Not for readers' }), 'a.epub'));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('permission_denied');
  });

  it('is 401 without a token', async () => {
    const res = await request(t.app).post('/api/books').attach('file', Buffer.from('hello'), 'a.txt');
    expect(res.status).toBe(401);
  });

  it('is 400 too_many_files for two files', async () => {
    const epub = await buildEpub({ title: 'Two files' });
    const res = await leavesNothing(() =>
      request(t.app).post('/api/books').set(bearer(alice.token)).attach('file', epub, 'a.epub').attach('file', buildPdf(), 'b.pdf'));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('too_many_files');
  });

  it('is 422 naming `file` when there is no file part', async () => {
    const res = await request(t.app).post('/api/books').set(bearer(alice.token)).field('title', 'No file');
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ location: 'body', field: 'file', message: expect.any(String) }]);
  });

  it('refuses unknown and nested field names, and a file part with another name', async () => {
    const cases: Array<[Record<string, string>, number]> = [[{ owner: 'x' }, 422], [{ 'a[b][c]': 'x' }, 400], [{ 'a[99999999]': 'x' }, 400], [{ 'meta.title': 'x' }, 400]];
    for (const [fields, status] of cases) {
      const res = await leavesNothing(() => upload(t.app, alice, Buffer.from('Some text.\n'), 'a.txt', fields));
      expect(res.status, Object.keys(fields)[0]).toBe(status);
    }
    const wrongName = await leavesNothing(() =>
      request(t.app).post('/api/books').set(bearer(alice.token)).attach('document', Buffer.from('Some text.\n'), 'a.txt'));
    expect(wrongName.status).toBe(422);
  });

  it('is 400 for more fields than allowed', async () => {
    const req = request(t.app).post('/api/books').set(bearer(alice.token));
    for (let i = 0; i < 30; i++) req.field('title', `t${i}`);
    const res = await req.attach('file', Buffer.from('Some text.\n'), 'a.txt');
    expect(res.status).toBe(400);
  });

  it('is 415 for JSON to the upload route and for multipart to a JSON route', async () => {
    const json = await request(t.app).post('/api/books').set(bearer(alice.token)).send({ title: 'x' });
    expect(json.status).toBe(415);
    const book = await upload(t.app, alice, Buffer.from('Some text for the 415 test.\n'), 'a.txt');
    expect(book.status).toBe(201);
    const multipart = await request(t.app).patch(`/api/books/${book.body.id}`).set(bearer(alice.token)).field('title', 'x');
    expect(multipart.status).toBe(415);
  });

  it('is 413 past MAX_UPLOAD_MB, with nothing left in staging or blobs', async () => {
    const small = await startTestApp({ MAX_UPLOAD_MB: '1' });
    try {
      const user = await registerUser(small.app, 'bob');
      const big = Buffer.alloc(1024 * 1024 + 1, 0x61);
      const res = await upload(small.app, user, big, 'big.txt');
      expect(res.status).toBe(413);
      expect(res.body.code).toBe('payload_too_large');
      expect(await storedFiles(small)).toEqual({ books: [], tmp: [] });
      const exact = await upload(small.app, user, Buffer.alloc(1024 * 1024, 0x62), 'exact.txt');
      expect(exact.status).toBe(201);
      expect(exact.body.file_size).toBe(1024 * 1024);
    } finally {
      await small.close();
    }
  });

  it('keeps a tiny PNG cover byte-for-byte', async () => {
    const res = await upload(t.app, alice, await buildEpub({ cover: tinyPng(2, 2) }), 'c.epub');
    const cover = await request(t.app).get(`/api/books/${res.body.id}/cover`).set(bearer(alice.token)).buffer(true);
    expect(cover.status).toBe(200);
    expect(Buffer.compare(cover.body as Buffer, tinyPng(2, 2))).toBe(0);
  });
});
