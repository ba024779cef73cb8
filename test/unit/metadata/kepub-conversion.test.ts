import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { parseDocument, DomUtils } from 'htmlparser2';
import yauzl from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kepubifyContent } from '../../../src/adapters/metadata/kepub-content.js';
import { SafeKepubConverter } from '../../../src/adapters/metadata/safe-kepub-converter.js';
import { buildEpub, writeZipBombEpub } from '../../support/fixtures/index.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/kobo');
const REAL_BOOKS = ['calibre-epub2.epub', 'calibre-epub3.epub', 'pandoc-epub3.epub'];

async function entries(path: string): Promise<Array<{ name: string; data: Buffer; method: number }>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.open(path, { lazyEntries: true }, (e, z) => (e ? reject(e) : resolve(z))));
  const out: Array<{ name: string; data: Buffer; method: number }> = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (entry.fileName.endsWith('/')) return zip.readEntry();
      zip.openReadStream(entry, async (e, s) => {
        if (e) return reject(e);
        const chunks: Buffer[] = [];
        for await (const c of s) chunks.push(c as Buffer);
        out.push({ name: entry.fileName, data: Buffer.concat(chunks), method: entry.compressionMethod });
        zip.readEntry();
      });
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return out;
}

/** The words of a document's body, as a reader sees them. */
const bodyText = (xhtml: string) => {
  const doc = parseDocument(xhtml, { xmlMode: false, decodeEntities: true });
  const body = DomUtils.findOne((el) => el.name.toLowerCase() === 'body', doc.children);
  return DomUtils.textContent(body ?? doc).replace(/\s+/g, ' ').trim();
};

describe('KEPUB conversion of real EPUBs (calibre 6, pandoc 2)', () => {
  const converter = new SafeKepubConverter();
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-kepub-'));
  });
  afterAll(async () => {
    await converter.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let n = 0;
  const convert = async (name: string, bytes?: Buffer | ((path: string) => Promise<void>)) => {
    const source = join(dir, `source-${(n += 1)}.epub`);
    if (typeof bytes === 'function') await bytes(source);
    else if (bytes) writeFileSync(source, bytes);
    else copyFileSync(join(FIXTURES, name), source);
    const before = createHash('sha256').update(readFileSync(source)).digest('hex');
    const out = await converter.convert({ handle: source, size: statSync(source).size, sha256: before });
    return { source, out, before };
  };

  it.each(REAL_BOOKS)('%s: well-formed XHTML with koboSpans and the wrappers, the same text, every other entry byte for byte', async (name) => {
    const { source, out, before } = await convert(name);
    expect(createHash('sha256').update(readFileSync(source)).digest('hex')).toBe(before);
    expect(out.sha256).toBe(createHash('sha256').update(readFileSync(out.handle)).digest('hex'));
    const original = await entries(source);
    const kepub = await entries(out.handle);
    expect(kepub[0]).toMatchObject({ name: 'mimetype', method: 0 });
    expect(kepub[0]!.data.toString()).toBe('application/epub+zip');
    expect(kepub.map((e) => e.name).sort()).toEqual(original.map((e) => e.name).sort());
    let converted = 0;
    for (const entry of original) {
      const after = kepub.find((e) => e.name === entry.name)!;
      if (/\.(x?html?)$/.test(entry.name)) {
        const text = after.data.toString('utf8');
        expect(XMLValidator.validate(text), entry.name).toBe(true);
        expect(text).toContain('<div id="book-columns"><div id="book-inner">');
        expect(bodyText(text)).toBe(bodyText(entry.data.toString('utf8')));
        if (bodyText(text).length > 0) {
          expect(text, entry.name).toMatch(/<span class="koboSpan" id="kobo\.\d+\.\d+">/);
          converted += 1;
        }
      } else if (!entry.name.endsWith('.opf')) {
        expect(Buffer.compare(after.data, entry.data), entry.name).toBe(0);
      }
    }
    expect(converted).toBeGreaterThan(0);
  });

  it('splits sentences into spans, numbers paragraphs as kepubify does, and leaves pre text alone (calibre EPUB 2)', async () => {
    const { out } = await convert('calibre-epub2.epub');
    const chapter = (await entries(out.handle)).filter((e) => /split_000|book/.test(e.name) && e.name.endsWith('html'))[0]!.data.toString();
    expect(chapter).toMatch(/>The lamp had burned for forty years\. <\/span><span class="koboSpan" id="kobo\.\d+\.2">Nobody remembered it dark! <\/span>/);
    expect(chapter).toContain('keep. this. verbatim.');
    expect(chapter).not.toMatch(/<pre[^>]*><span/);
  });

  it('gives the EPUB 2 cover the cover-image property Kobo needs', async () => {
    const { out } = await convert('calibre-epub2.epub');
    const opf = (await entries(out.handle)).find((e) => e.name.endsWith('.opf'))!.data.toString();
    expect(opf).toMatch(/<item[^>]*properties="cover-image"/);
    expect(XMLValidator.validate(opf)).toBe(true);
  });

  it('refuses a zip bomb as the metadata reader does (422), leaving no output behind', async () => {
    const kepubsBefore = readdirSync(dir).filter((f) => f.endsWith('.kepub')).length;
    const error = await convert('bomb', (path) => writeZipBombEpub(path, 300, { lieAboutSize: true })).then(() => null, (e: unknown) => e);
    expect(error).toMatchObject({ kind: 'unprocessable', code: 'corrupt_book_file' });
    expect(readdirSync(dir).filter((f) => f.endsWith('.kepub'))).toHaveLength(kepubsBefore);
  });

  it('refuses a document of a million unclosed elements as soon as it nests past 512, not after parsing it all (outside review K2)', () => {
    // Lenient HTML parsing of this takes minutes when the depth is judged after the parse.
    const unclosed = `<html><body>${'<p>a. b. <i>'.repeat(300_000)}</body></html>`;
    expect(() => kepubifyContent(unclosed)).toThrow(/deeper than 512/);
  });

  it('starts a conversion waiting behind one stopped at its time budget, without another being asked for (outside review K1)', async () => {
    // A 1 ms budget stops every conversion once its worker has it; each must still settle, the second
    // one too (piscina with no idle thread left it queued until a third task arrived).
    const hurried = new SafeKepubConverter({ timeBudgetMs: 1 });
    try {
      const sources = await Promise.all([1, 2].map(async (i) => {
        const path = join(dir, `hurried-${i}.epub`);
        copyFileSync(join(FIXTURES, 'calibre-epub3.epub'), path);
        return { handle: path, size: statSync(path).size, sha256: String(i) };
      }));
      const settled = await Promise.allSettled(sources.map((source) => hurried.convert(source)));
      expect(settled).toHaveLength(2);
      for (const r of settled) if (r.status === 'rejected') expect((r.reason as { code?: string }).code).toBe('metadata_timeout');
    } finally {
      await hurried.close();
    }
  }, 120_000);

  it('converts a 1 MB one-paragraph chapter into one span per sentence, and refuses markup nested deeper than 512', async () => {
    const chapter = `<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body><p>${'Word. '.repeat(170_000)}</p></body></html>`;
    expect(kepubifyContent(chapter)!.match(/class="koboSpan"/g)).toHaveLength(170_000);
    const deep = `<html><body>${'<div>'.repeat(600)}x${'</div>'.repeat(600)}</body></html>`;
    expect(() => kepubifyContent(deep)).toThrow(/deeper than 512/);
    const { out } = await convert('nested', await buildEpub({ extraEntries: [{ name: 'OEBPS/text/deep.xhtml', data: deep }],
      extraManifest: '<item id="deep" href="text/deep.xhtml" media-type="application/xhtml+xml"/>' }).catch(() => buildEpub()))
      .then((r) => r, (e: unknown) => ({ out: null, error: e }));
    expect(out).toBeNull();
  });
});
