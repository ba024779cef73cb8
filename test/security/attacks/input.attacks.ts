import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BOOK_QUERY_MAX_LENGTH } from '../../../src/domain/book.js';
import { buildEpub } from '../../support/fixtures/index.js';
import { bearer } from '../../support/test-app.js';
import { attack, isProblem, verdict, type Attack, type Seen } from '../support/outcome.js';
import { filePart, multipart, multipartType } from '../support/multipart.js';
import type { World } from '../support/world.js';

const json = (w: World, method: 'post' | 'patch' | 'put', path: string, raw: string, token?: string) => {
  const req = w.api()[method](path).set('Content-Type', 'application/json');
  if (token) req.set(bearer(token));
  return req.send(raw);
};
const timed = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
  const s = performance.now();
  const r = await f();
  return [r, performance.now() - s];
};

/** A request that must be refused with one of the statuses (the time is noted, never judged: it is the machine's). */
const refused = (row: string, slug: string, name: string, send: (w: World) => Promise<Seen>, statuses: number[]) =>
  attack(row, slug, name, async (w) => {
    const [res, took] = await timed(() => send(w));
    return verdict(res, isProblem(res, statuses), `${took.toFixed(0)} ms`);
  });

export const inputAttacks: Attack[] = [
  refused('IN-01', 'unknown-body-field', 'an unknown field in a shelf body', (w) => w.api().post('/api/shelves').set(bearer(w.bob.token)).send({ name: 'x', evil: 1 }), [422]),
  refused('IN-01', 'wrong-type', 'is_public as a string', (w) => w.api().post('/api/shelves').set(bearer(w.bob.token)).send({ name: 'x', is_public: 'yes' }), [422]),
  refused('IN-01', 'long-id', 'a 65-character path id', (w) => w.api().get(`/api/books/${'a'.repeat(65)}`).set(bearer(w.bob.token)), [404, 422]),
  refused('IN-01', 'unknown-query', 'an unknown query parameter', (w) => w.api().get('/api/books?evil=1').set(bearer(w.bob.token)), [422]),
  refused('IN-01', 'bad-enum', 'sort=password', (w) => w.api().get('/api/books?sort=password').set(bearer(w.bob.token)), [422]),
  refused('IN-02', 'login-operators', 'login with {"$ne":null} for both fields', (w) => json(w, 'post', '/api/auth/login', '{"username":{"$ne":null},"password":{"$ne":null}}'), [400, 422]),
  refused('IN-02', 'register-operators', 'register with an operator e-mail', (w) => json(w, 'post', '/api/auth/register', '{"username":"opuser","email":{"$gt":""},"password":"correct horse battery"}'), [400, 422]),
  refused('IN-02', 'query-regex', '?q[$regex]=.*', (w) => w.api().get('/api/books?q[$regex]=.*').set(bearer(w.bob.token)), [400, 422]),
  refused('IN-02', 'query-ne', '?title[$ne]=x', (w) => w.api().get('/api/books?title[$ne]=x').set(bearer(w.bob.token)), [400, 422]),
  refused('IN-02', 'where-body', '{"$where":"sleep(5000)"} in a body', (w) => w.api().patch(`/api/books/${w.ids.bobBook}`).set(bearer(w.bob.token)).send({ $where: 'sleep(5000)' }), [400, 422]),
  refused('IN-02', 'dotted-key', 'a dotted key {"owner.id": …}', (w) => w.api().patch(`/api/shelves/${w.ids.bobShelf}`).set(bearer(w.bob.token)).send({ 'owner.id': w.alice.user.id }), [400, 422]),
  refused('IN-02', 'operator-in-array', 'book_ids holding an operator object', (w) => w.api().patch(`/api/shelves/${w.ids.bobShelf}`).set(bearer(w.bob.token)).send({ book_ids: [{ $ne: null }] }), [400, 422]),
  attack('IN-02', 'operator-as-literal', 'q={"$ne":null} is searched literally', async (w) => {
    const res = await w.api().get(`/api/books?q=${encodeURIComponent('{"$ne":null}')}`).set(bearer(w.bob.token));
    return verdict(res, res.status === 200 && res.body.total === 0);
  }),
  attack('IN-03', 'redos', 'q=(a+)+$ repeated to 5000 characters: refused at the 200-character cap; at the cap, searched literally', async (w) => {
    const hostile = '(a+)+$'.repeat(834);
    const [res, took] = await timed(() => w.api().get(`/api/books?q=${encodeURIComponent(hostile.slice(0, 5000))}`).set(bearer(w.bob.token)));
    const atCap = await w.api().get(`/api/books?q=${encodeURIComponent(hostile.slice(0, BOOK_QUERY_MAX_LENGTH))}`).set(bearer(w.bob.token));
    return verdict([res, atCap], isProblem(res, 422) && atCap.status === 200 && atCap.body.total === 0, `${took.toFixed(0)} ms`);
  }),
  attack('IN-03', 'dot-star', 'q=.* does not match every title', async (w) => {
    const res = await w.api().get('/api/books?q=.*').set(bearer(w.bob.token));
    return verdict(res, res.status === 200 && res.body.total === 0);
  }),
  attack('IN-03', 'like-wildcards', 'q=% and q=_ are literal, not SQL wildcards', async (w) => {
    const seen = [await w.api().get('/api/books?q=%25').set(bearer(w.bob.token)), await w.api().get('/api/books?q=_').set(bearer(w.bob.token))];
    return verdict(seen, seen.every((r) => r.status === 200 && r.body.total === 0));
  }),
  attack('IN-03', 'sql-quote', "q=' OR '1'='1 is literal", async (w) => {
    const res = await w.api().get(`/api/books?q=${encodeURIComponent("' OR '1'='1")}`).set(bearer(w.bob.token));
    return verdict(res, res.status === 200 && res.body.total === 0);
  }),
  refused('IN-04', 'json-as-text', 'a JSON body sent as text/plain', (w) => w.api().post('/api/shelves').set(bearer(w.bob.token)).set('Content-Type', 'text/plain').send('{"name":"x"}'), [415]),
  refused('IN-04', 'no-content-type', 'a JSON body with no Content-Type', (w) => w.api().post('/api/auth/login').unset('Content-Type').send(Buffer.from('{"username":"a","password":"b"}')), [415]),
  refused('IN-04', 'multipart-to-json', 'multipart sent to a JSON endpoint', (w) => w.api().post('/api/shelves').set(bearer(w.bob.token)).set('Content-Type', multipartType()).send(multipart([filePart('a.txt', 'x')])), [415]),
  refused('IN-04', 'json-to-upload', 'JSON sent to the upload endpoint', (w) => w.api().post('/api/books').set(bearer(w.bob.token)).send({ file: 'x' }), [415]),
  refused('IN-04', 'xml-to-json', 'an XML body to login', (w) => w.api().post('/api/auth/login').set('Content-Type', 'application/xml').send('<a/>'), [415]),
  refused('IN-05', 'json-101kb', 'a 101 KB JSON body', (w) => json(w, 'post', '/api/auth/login', JSON.stringify({ username: 'a', password: 'p'.repeat(101 * 1024) })), [413]),
  refused('IN-05', 'nested-10000', 'arrays nested 10 000 deep', (w) => json(w, 'post', '/api/shelves', `${'['.repeat(10_000)}${']'.repeat(10_000)}`, w.bob.token), [400, 413, 422]),
  // 413: the shelves' 1 MB body limit stops reading before the 2 MB body is parsed (without it: parsed, then 422).
  refused('IN-05', 'million-elements', 'a JSON array of 1e6 elements is refused at the body limit', (w) => json(w, 'post', '/api/shelves', `{"name":"x","book_ids":[${Array(1e6).fill('1').join(',')}]}`, w.bob.token), [413]),
  refused('IN-05', 'malformed-json', 'malformed JSON {"a":', (w) => json(w, 'post', '/api/auth/login', '{"a":'), [400]),
  refused('IN-05', 'non-strict-json', 'a bare JSON string', (w) => json(w, 'post', '/api/auth/login', '"just a string"'), [400, 422]),
  refused('IN-05', 'bom-and-garbage', 'a body with a NUL and garbage', (w) => json(w, 'post', '/api/auth/login', '{"username":"a\u0000","password":'), [400]),
  attack('IN-06', 'ten-thousand-tags', '?tag= repeated 10 000 times, on a real socket: refused by the header-size limit before routing', async (w) => {
    const [res, took] = await timed(() => fetch(`${w.url}/api/books?${'tag=a&'.repeat(10_000)}`, { headers: bearer(w.bob.token) }));
    const seen = { status: res.status, text: await res.text(), headers: Object.fromEntries(res.headers) };
    return verdict(seen, [414, 431].includes(res.status), `${res.status} in ${took.toFixed(0)} ms`);
  }),
  attack('IN-06', 'thousand-tags', '?tag= repeated 1000 times: refused as a query error, not searched', async (w) => {
    const [res, took] = await timed(() => w.api().get(`/api/books?${'tag=a&'.repeat(1000)}`).set(bearer(w.bob.token)));
    return verdict(res, isProblem(res, [400, 422]), `${res.status} in ${took.toFixed(0)} ms`);
  }),
  attack('IN-06', 'duplicate-page-size', '?page_size=10&page_size=1000000 never pages above 100', async (w) => {
    const res = await w.api().get('/api/books?page_size=10&page_size=1000000').set(bearer(w.bob.token));
    return verdict(res, isProblem(res, [400, 422]) || (res.status === 200 && res.body.page_size <= 100));
  }),
  ...['/api/books', '/api/shelves', '/api/users'].map((p) => refused('IN-07', `page-size${p.replace(/\//g, '-')}`, `${p}?page_size=1000000`,
    (w) => w.api().get(`${p}?page_size=1000000`).set(bearer(w.admin.token)), [422])),
  refused('IN-07', 'page-zero', '?page=0', (w) => w.api().get('/api/books?page=0').set(bearer(w.bob.token)), [422]),
  refused('IN-07', 'page-huge', '?page=1e308', (w) => w.api().get('/api/books?page=1e308').set(bearer(w.bob.token)), [422]),
  attack('IN-08', 'remote-hrefs', 'an EPUB naming cover and stylesheet URLs on a canary is never fetched', async (w) => {
    let hits = 0;
    const canary = createServer((_q, r) => { hits += 1; r.end('x'); });
    await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(canary.address() as AddressInfo).port}`;
    const epub = await buildEpub({
      title: `Remote ${Date.now()}`, cover: null,
      extraManifest: `<item id="c" href="${base}/cover.png" media-type="image/png" properties="cover-image"/><item id="s" href="${base}/s.css" media-type="text/css"/><item id="m" href="http://169.254.169.254/latest/meta-data/" media-type="text/plain"/>`,
    });
    const res = await w.api().post('/api/books').set(bearer(w.bob.token)).set('Content-Type', multipartType()).send(multipart([filePart('remote.epub', epub)]));
    await new Promise((r) => setTimeout(r, 200));
    canary.close();
    if (res.status === 201) await w.api().delete(`/api/books/${res.body.id}`).set(bearer(w.bob.token));
    return verdict(res, hits === 0 && (res.status === 201 || isProblem(res, [415, 422])), `canary hits ${hits}`);
  }),
];
