import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload } from '../support/books.js';
import { buildEpub } from '../support/fixtures/index.js';
import { addKobo, koboCall, type KoboDeviceUrl } from '../support/kobo.js';
import { registerUser, startTestApp, type TestApp } from '../support/test-app.js';

/** A chapter nested deeper than the KEPUB converter takes (512): the converter refuses it, the upload is fine. */
const DEEP = `<html><body>${'<div>'.repeat(600)}x${'</div>'.repeat(600)}</body></html>`;

describe('a Kobo download whose KEPUB conversion is refused', () => {
  let t: TestApp;
  let device: KoboDeviceUrl;
  let bookId: string;
  const lines: string[] = [];

  beforeAll(async () => {
    t = await startTestApp({}, {}, lines);
    const alice = await registerUser(t.app, 'alice');
    const epub = await buildEpub({
      title: 'Too deep', extraEntries: [{ name: 'OEBPS/text/deep.xhtml', data: DEEP }],
      extraManifest: '<item id="deep" href="text/deep.xhtml" media-type="application/xhtml+xml"/>',
    });
    bookId = (await upload(t.app, alice, epub, 'deep.epub').expect(201)).body.id;
    device = await addKobo(t.app, alice);
  }, 60_000);
  afterAll(() => t.close());

  it('serves the EPUB as it is, and is not converted again at the next downloads (outside review K2)', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await koboCall(t.app, device, 'get', `/v1/books/${bookId}/file`).buffer(true);
      expect(res.status).toBe(200);
      expect(res.headers['content-disposition']).toContain('deep.epub');
      expect(res.headers['content-disposition']).not.toContain('.kepub');
    }
    const refusals = lines.map((l) => JSON.parse(l) as { msg?: string }).filter((l) => l.msg === 'KEPUB conversion failed: the EPUB is served as it is');
    expect(refusals).toHaveLength(1);
  });
});
