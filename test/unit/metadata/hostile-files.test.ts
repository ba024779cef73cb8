import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SafeMetadataReader } from '../../../src/adapters/metadata/safe-metadata-reader.js';
import type { StagedFile } from '../../../src/application/ports.js';
import { UnprocessableError, UnsupportedTypeError } from '../../../src/domain/errors.js';
import {
  COMIC_INFO,
  HOSTILE_OPF,
  buildCbz,
  buildEpub,
  buildFb2,
  buildMobi,
  buildPdf,
  epubWithRawEntry,
  fixtureDir,
  rawZip,
  seededBytes,
  stageBytes,
  stageExisting,
  tinyPng,
  writeManyEntriesZip,
  writeRawZipFile,
  storedEntry,
  deflatedZerosEntry,
  writeZipBombEpub,
  zipBuffer,
} from '../../support/fixtures/index.js';

let reader: SafeMetadataReader;
let dir: Awaited<ReturnType<typeof fixtureDir>>;
let n = 0;
const stage = (bytes: Buffer, name = 'upload.epub') => stageBytes(dir.path(`${n++}-${name}`), bytes);

/** Rejects with the given class (and code), and a valid book still reads afterwards; the time is the machine's, not judged. */
async function expectRejected(file: StagedFile | Promise<StagedFile>, errorClass: typeof UnprocessableError | typeof UnsupportedTypeError, code?: string) {
  const staged = await file;
  const error = await reader.read(staged).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(errorClass);
  if (code) expect(error).toMatchObject({ code });
  expect((await reader.read(await stage(buildPdf({ info: { Title: 'Alive' } })))).metadata.title).toBe('Alive');
}

beforeAll(async () => {
  reader = new SafeMetadataReader();
  dir = await fixtureDir();
  await reader.read(await stage(buildPdf())); // warm a worker so timings measure the file, not start-up
}, 60_000);
afterAll(async () => {
  await reader.close();
  await dir.cleanup();
});

describe('type decided by content (UP-03)', () => {
  it('seeded random bytes named .epub: 415', () => expectRejected(stage(seededBytes(42, 256 * 1024)), UnsupportedTypeError, 'unsupported_book_format'));
  it('an HTML page named .epub: 415', () =>
    expectRejected(stage(Buffer.from('<!DOCTYPE html><html><body><script>alert(1)</script></body></html>')), UnsupportedTypeError));
  it('an ELF header named .epub: 415', () =>
    expectRejected(stage(Buffer.concat([Buffer.from('\x7fELF\x02\x01\x01\0', 'latin1'), seededBytes(1, 4096)])), UnsupportedTypeError));
  it('a ZIP of documents (neither EPUB nor comic): 415', async () =>
    expectRejected(stage(await zipBuffer([{ name: 'word/document.xml', data: '<w/>' }, { name: '[Content_Types].xml', data: '<t/>' }])), UnsupportedTypeError));
  it('a 0-byte file: 422 empty_file', () => expectRejected(stage(Buffer.alloc(0)), UnprocessableError, 'empty_file'));
  it('an EPUB cut in half: 422', async () => {
    const epub = await buildEpub();
    await expectRejected(stage(epub.subarray(0, epub.length >> 1)), UnprocessableError, 'corrupt_book_file');
  });
  it('an EPUB with no package document: 422', async () =>
    expectRejected(stage(await buildEpub({ container: '<container><rootfiles/></container>' })), UnprocessableError));
});

describe('ZIP bombs and archive shapes (UP-04, UP-05)', () => {
  let bomb: StagedFile;
  let lyingBomb: StagedFile;
  let manyEntries: StagedFile;

  beforeAll(async () => {
    await writeZipBombEpub(dir.path('bomb.epub'), 400);
    await writeZipBombEpub(dir.path('lying-bomb.epub'), 400, { lieAboutSize: true });
    await writeManyEntriesZip(dir.path('many.epub'), 100_000);
    bomb = await stageExisting(dir.path('bomb.epub'));
    lyingBomb = await stageExisting(dir.path('lying-bomb.epub'));
    manyEntries = await stageExisting(dir.path('many.epub'));
    await reader.read(await stage(buildPdf())); // building took a while: re-warm a worker
  }, 120_000);

  it('400 MB of zeros deflated under 1 MB: 422 before inflating, RSS stays flat', async () => {
    expect(bomb.size).toBeLessThan(1024 * 1024);
    const rss = process.memoryUsage().rss;
    await expectRejected(bomb, UnprocessableError, 'corrupt_book_file');
    expect(process.memoryUsage().rss - rss).toBeLessThan(100 * 1024 * 1024);
  });
  it('the same bomb declaring 1 KB: 422, inflation stopped at the declared size', async () => {
    const rss = process.memoryUsage().rss;
    await expectRejected(lyingBomb, UnprocessableError, 'corrupt_book_file');
    expect(process.memoryUsage().rss - rss).toBeLessThan(100 * 1024 * 1024);
  });
  it('100 000 entries: 422', () => expectRejected(manyEntries, UnprocessableError, 'corrupt_book_file'));
  it('a nested zip inside an EPUB: 422', async () => {
    const inner = await buildEpub();
    await expectRejected(stage(await buildEpub({ extraEntries: [{ name: 'OEBPS/inner.zip', data: inner }] })), UnprocessableError);
  });
  it('a nested zip disguised as the cover image: 422', async () =>
    expectRejected(stage(await buildEpub({ cover: await zipBuffer([{ name: 'a.txt', data: 'x'.repeat(10) }]) })), UnprocessableError));
  for (const name of ['../../../../tmp/pwned', '/etc/x', '..\\..\\x', 'C:/x', 'OEBPS/../../x']) {
    it(`an entry named ${JSON.stringify(name)}: 422`, () => expectRejected(stage(epubWithRawEntry({ name, data: Buffer.from('pwned') })), UnprocessableError));
  }
  it('a symlink entry pointing at /etc/passwd: 422', () =>
    expectRejected(stage(epubWithRawEntry({ name: 'OEBPS/link', data: Buffer.from('/etc/passwd'), unixMode: 0o120777 })), UnprocessableError));
  it('overlapping entries (two names, one local header): 422', () =>
    expectRejected(stage(epubWithRawEntry({ name: 'OEBPS/again.xhtml', data: Buffer.from('x'), offsetOverride: 0 })), UnprocessableError));
  it('a CBZ with a 200 MB zero-filled page it would never read: 422 (ratio checked for every entry)', async () => {
    await writeRawZipFile(dir.path('page-bomb.cbz'), [storedEntry('001.png', tinyPng()), deflatedZerosEntry('002.png', 200)]);
    await expectRejected(stageExisting(dir.path('page-bomb.cbz')), UnprocessableError, 'corrupt_book_file');
  });
  it('a CBZ whose ComicInfo.xml is a bomb: 422', async () =>
    expectRejected(stage(await buildCbz({ comicInfo: `<ComicInfo><Title>${' '.repeat(3 * 1024 * 1024)}</Title></ComicInfo>` })), UnprocessableError));
});

describe('hostile XML (UP-06)', () => {
  for (const [name, opf] of Object.entries(HOSTILE_OPF)) {
    it(`OPF with ${name}: 422`, async () => expectRejected(stage(await buildEpub({ opf })), UnprocessableError, 'corrupt_book_file'));
  }
  it('FB2 with an external entity: 422', () =>
    expectRejected(stage(buildFb2({ prolog: '<!DOCTYPE FictionBook [<!ENTITY x SYSTEM "file:///etc/passwd">]>' }), 'a.fb2'), UnprocessableError));
  it('FB2 description nested 100 000 deep: 422', () =>
    expectRejected(stage(buildFb2({ description: `<description>${'<p>'.repeat(100_000)}${'</p>'.repeat(100_000)}</description>` })), UnprocessableError));
  it('ComicInfo.xml with billion laughs: 422', async () =>
    expectRejected(stage(await buildCbz({ comicInfo: HOSTILE_OPF.billionLaughs })), UnprocessableError));
  it('a well-formed CBZ with ComicInfo is still read (control)', async () =>
    expect((await reader.read(await stage(await buildCbz({ comicInfo: COMIC_INFO }))) ).format).toBe('cbz'));
});

describe('hostile PDF and MOBI (UP-07)', () => {
  it('a PDF declaring /Count 100000000: 422', () => expectRejected(stage(buildPdf({ pageCount: 100_000_000 })), UnprocessableError));
  it('"%PDF-1.7" followed by garbage: 422', () =>
    expectRejected(stage(Buffer.concat([Buffer.from('%PDF-1.7\n'), seededBytes(9, 8192), Buffer.from('\n%%EOF\n')])), UnprocessableError));
  it('a PDF without its %%EOF trailer: 422', () => expectRejected(stage(buildPdf({ truncate: true })), UnprocessableError));
  it('a MOBI whose record table points past the end: 422', () => {
    const mobi = buildMobi();
    mobi.writeUInt32BE(0x7fffffff, 78 + 8);
    return expectRejected(stage(mobi), UnprocessableError);
  });
  it('a MOBI cut after its header: 422', () => expectRejected(stage(buildMobi().subarray(0, 120)), UnprocessableError));
  it('a MOBI whose EXTH record length runs past record 0: 422', () => {
    const mobi = buildMobi({ exth: [[100, 'Author']] });
    const exthAt = mobi.indexOf('EXTH', 0, 'latin1');
    mobi.writeUInt32BE(0x00ffffff, exthAt + 12 + 4);
    return expectRejected(stage(mobi), UnprocessableError);
  });
});

it('a raw hand-written EPUB with safe names is accepted (control for the zip-slip cases)', async () => {
  const book = await reader.read(await stage(epubWithRawEntry({ name: 'OEBPS/images/cover.png', data: tinyPng() })));
  expect(book.metadata.title).toBe('The Left Hand of Darkness');
  expect(rawZip).toBeTypeOf('function');
});
