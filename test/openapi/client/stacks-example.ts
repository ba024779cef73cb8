// A Stacks client as a user writes one: types generated from /openapi.json by openapi-typescript,
// requests sent by openapi-fetch (docs/clients.md: "A typed client from /openapi.json"). The suite generates
// the types from the running service, compiles this file with tsc and runs it
// (test/openapi/generated-client.test.ts), so a breaking change to the document fails CI.
import { readFile } from 'node:fs/promises';
import createClient from 'openapi-fetch';
import type { paths } from './stacks-api.js';

const stacks = createClient<paths>({ baseUrl: process.env.STACKS_URL ?? 'http://localhost:8000' });
const bookPath = process.argv[2] ?? 'book.epub';

const session = await stacks.POST('/api/auth/register', {
  body: { username: 'ada', email: 'ada@example.com', password: 'correct horse battery' },
});
if (!session.data) throw new Error(`register: ${session.error.code}`);
const token = session.data.access_token;
stacks.use({ onRequest: ({ request }) => (request.headers.set('Authorization', `Bearer ${token}`), request) });

// The document types the `file` part as a (binary) string: name the file there, send its bytes below.
const bytes = new Blob([await readFile(bookPath)], { type: 'application/epub+zip' });
const uploaded = await stacks.POST('/api/books', {
  body: { file: 'book.epub', tags: 'example' },
  bodySerializer: ({ file, tags }) => {
    const form = new FormData();
    form.append('file', bytes, file);
    if (tags) form.append('tags', tags);
    return form;
  },
});
if (!uploaded.data) throw new Error(`upload: ${uploaded.error.code}`);
const book = uploaded.data;

const listed = await stacks.GET('/api/books', { params: { query: { tag: 'example', sort: 'title', page_size: 10 } } });
if (!listed.data) throw new Error(`list: ${listed.error.code}`);

const progress = await stacks.PUT('/api/books/{id}/progress', {
  params: { path: { id: book.id } },
  body: { percentage: 0.42, locator: 'epubcfi(/6/4!/4/2)', device: 'example script' },
});
if (!progress.data) throw new Error(`progress: ${progress.error.code}`);

console.log(JSON.stringify({
  user: session.data.user.username,
  book: { id: book.id, title: book.title, format: book.format, tags: book.tags },
  listed: listed.data.items.map((b) => b.title),
  total: listed.data.total,
  progress: { status: progress.data.status, percentage: progress.data.percentage, device: progress.data.device },
}));
