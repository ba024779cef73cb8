import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SafeMetadataReader } from '../../../src/adapters/metadata/safe-metadata-reader.js';
import {
  anEpub2Opf,
  buildCbz,
  buildEpub,
  buildFb2,
  buildMobi,
  buildPdf,
  fixtureDir,
  seededBytes,
  stageBytes,
  tinyJpeg,
  tinyPng,
} from '../../support/fixtures/index.js';

let reader: SafeMetadataReader;
let dir: Awaited<ReturnType<typeof fixtureDir>>;
let n = 0;
const read = async (bytes: Buffer, name = 'book.bin') => reader.read(await stageBytes(dir.path(`${n++}-${name}`), bytes));

beforeAll(async () => {
  reader = new SafeMetadataReader({ timeBudgetMs: 10_000 });
  dir = await fixtureDir();
});
afterAll(async () => {
  await reader.close();
  await dir.cleanup();
});

describe('EPUB', () => {
  it('reads EPUB 3 metadata field by field, with the cover-image item as cover', async () => {
    const book = await read(await buildEpub(), 'book.txt');
    expect(book.format).toBe('epub');
    expect(book.metadata).toEqual({
      title: 'The Left Hand of Darkness',
      authors: ['Ursula K. Le Guin', 'Second & Author'],
      language: 'en-GB',
      isbn: '9780306406157',
      publisher: 'Ace Books',
      published: '1969-03-01',
      tags: ['Science fiction', 'Gender'],
      description: 'A classic novel.\n\nSecond para & more.',
      series: 'Hainish Cycle',
      seriesIndex: 4,
    });
    expect(book.cover?.mediaType).toBe('image/png');
    expect(Buffer.from(book.cover!.data).equals(tinyPng())).toBe(true);
  });

  it('reads EPUB 2 metadata: opf:role, urn:isbn, publication date, calibre series, <meta name="cover">', async () => {
    const book = await read(await buildEpub({ opf: anEpub2Opf(), cover: tinyJpeg() }));
    expect(book.metadata).toEqual({
      title: 'Old Style',
      authors: ['Jane Doe'],
      isbn: '0306406152',
      published: '2001-07',
      language: 'fr',
      series: 'The Series',
      seriesIndex: 2.5,
    });
    expect(book.cover?.mediaType).toBe('image/jpeg');
  });

  it('finds an OPF outside OEBPS and guesses a cover by its name', async () => {
    const opf = anEpub2Opf().replace('<meta name="cover" content="my-cover"/>', '');
    const book = await read(await buildEpub({ opf, opfPath: 'content.opf', extraEntries: [{ name: 'images/cover.png', data: tinyPng() }], cover: null }));
    expect(book.metadata.title).toBe('Old Style');
    expect(book.cover?.mediaType).toBe('image/png');
  });

  it('gives no cover when the cover bytes are not an allowed image, or the href is remote', async () => {
    const svg = await read(await buildEpub({ cover: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>') }));
    expect(svg.cover).toBeNull();
    const remote = await read(
      await buildEpub({ cover: null, extraManifest: '<item id="c" href="http://169.254.169.254/cover.png" media-type="image/png" properties="cover-image"/>' }),
    );
    expect(remote.cover).toBeNull();
  });

  it('stores a 1 MB title truncated and an object-looking creator as a literal string (UP-11)', async () => {
    const letters = seededBytes(7, 1024 * 1024).toString('latin1').replace(/[^]/g, (c) => 'abcdefghijklmnopqrstuvwxyz   '[c.charCodeAt(0) % 29]!);
    const title = `Start ${letters}`;
    const book = await read(await buildEpub({ title, extraMetadata: '<dc:creator>{"$gt":""}</dc:creator>' }));
    expect(book.metadata.title).toBe(title.replace(/\s+/g, ' ').slice(0, 500).trimEnd());
    expect(book.metadata.authors).toContain('{"$gt":""}');
  });

  it('rejects a 1 MB title of one repeated letter: its OPF inflates more than 200:1', async () => {
    await expect(read(await buildEpub({ title: 'T'.repeat(1024 * 1024) }))).rejects.toMatchObject({ code: 'corrupt_book_file', kind: 'unprocessable' });
  });

  it('strips control and bidi characters from values', async () => {
    const book = await read(await buildEpub({ title: 'A\u0007B\u202Ec &#1; d' }));
    expect(book.metadata.title).toBe('ABc d');
  });
});

describe('PDF', () => {
  it('reads the Info dictionary as calibre does: names split on & and "and" (not ;), keywords on commas, no date without XMP', async () => {
    const book = await read(
      buildPdf({
        info: {
          Title: 'Структура и интерпретация',
          Author: 'Harold Abelson; Gerald Jay Sussman & Julie Sussman and Someone Else',
          Subject: 'About programs',
          Keywords: 'lisp, scheme; programming, 978-0-262-51087-5',
          CreationDate: 'D:19960725120000Z',
        },
      }),
      'book.epub',
    );
    expect(book).toEqual({
      format: 'pdf',
      metadata: {
        title: 'Структура и интерпретация',
        authors: ['Harold Abelson; Gerald Jay Sussman', 'Julie Sussman', 'Someone Else'],
        description: 'About programs',
        tags: ['lisp', 'scheme; programming'],
        isbn: '9780262510875',
      },
      cover: null,
    });
  });

  it('falls back to XMP dc:title and dc:creator', async () => {
    const book = await read(buildPdf({ xmp: { title: 'From XMP', creators: ['First Creator', 'Second Creator'] } }));
    expect(book.metadata).toEqual({ title: 'From XMP', authors: ['First Creator', 'Second Creator'] });
  });
});

describe('MOBI and AZW3', () => {
  const exth: Array<[number, string | number]> = [
    [100, 'Frank Herbert'],
    [100, 'Brian Herbert'],
    [101, 'Chilton Books'],
    [103, '<p>Desert <b>planet</b>.</p>'],
    [104, '978-0-306-40615-7'],
    [105, 'Science Fiction'],
    [105, 'Classics'],
    [106, '1965-08-01T00:00:00+00:00'],
    [503, 'Dune'],
    [524, 'en'],
  ];

  it('reads EXTH records and the cover record of a MOBI file', async () => {
    const book = await read(buildMobi({ exth }), 'x.pdf');
    expect(book.format).toBe('mobi');
    expect(book.metadata).toEqual({
      title: 'Dune',
      authors: ['Frank Herbert', 'Brian Herbert'],
      publisher: 'Chilton Books',
      description: 'Desert planet.',
      isbn: '9780306406157',
      tags: ['Science Fiction', 'Classics'],
      published: '1965-08-01',
      language: 'en',
    });
    expect(book.cover?.mediaType).toBe('image/jpeg');
    expect(Buffer.from(book.cover!.data).equals(tinyJpeg())).toBe(true);
  });

  it('falls back to the MOBI full name, then the PalmDB name', async () => {
    expect((await read(buildMobi({ cover: null }))).metadata).toEqual({ title: 'Full Name Title' });
    expect((await read(buildMobi({ cover: null, fullName: '' }))).metadata).toEqual({ title: 'Palm Name' });
  });

  it('decides azw3 for KF8: header version 8, or a KF8 boundary EXTH 121', async () => {
    expect((await read(buildMobi({ version: 8 }))).format).toBe('azw3');
    expect((await read(buildMobi({ exth: [[121, 3]] }))).format).toBe('azw3');
    expect((await read(buildMobi({ exth: [[121, 0xffffffff]] }))).format).toBe('mobi');
  });
});

describe('CBZ', () => {
  it('reads ComicInfo.xml and takes the first page in natural order as cover', async () => {
    const book = await read(await buildCbz(), 'comic.epub');
    expect(book.format).toBe('cbz');
    expect(book.metadata).toEqual({
      title: 'The Night Gwen Stacy Died',
      series: 'The Amazing Spider-Man',
      seriesIndex: 121,
      description: 'Gwen & Peter. Classic.',
      published: '1973-06-01',
      authors: ['Gerry Conway', 'Stan Lee'],
      publisher: 'Marvel',
      tags: ['Superhero', 'Drama', 'classic'],
      language: 'en',
    });
    expect(book.cover?.mediaType).toBe('image/jpeg');
  });

  it('reads a CBZ without ComicInfo.xml', async () => {
    const book = await read(await buildCbz({ comicInfo: null }));
    expect(book).toMatchObject({ format: 'cbz', metadata: {} });
    expect(book.cover?.mediaType).toBe('image/jpeg');
  });
});

describe('FB2', () => {
  const expected = {
    title: 'Война и мир',
    authors: ['Лев Николаевич Толстой', 'anon'],
    tags: ['sf_history', 'antique', 'history', 'war'],
    language: 'ru',
    description: 'Роман-эпопея о войне.\n\nSecond & last.',
    published: '1983',
    series: 'Собрание сочинений',
    seriesIndex: 5,
    publisher: 'Художественная литература',
    isbn: '528000152X',
  };

  it('reads title-info and publish-info, and the coverpage binary as cover', async () => {
    const book = await read(buildFb2(), 'book.txt');
    expect(book.format).toBe('fb2');
    expect(book.metadata).toEqual(expected);
    expect(book.cover?.mediaType).toBe('image/png');
    expect(Buffer.from(book.cover!.data).equals(tinyPng())).toBe(true);
  });

  it('decodes windows-1251 by the XML declaration and skips a UTF-8 BOM', async () => {
    expect((await read(buildFb2({ encoding: 'windows-1251' }))).metadata).toEqual(expected);
    expect((await read(buildFb2({ bom: true }))).metadata).toEqual(expected);
  });
});

describe('plain text', () => {
  it('accepts valid UTF-8 prose and reads nothing from it', async () => {
    const book = await read(Buffer.from('Chapter 1\n\nIt was a dark and stormy night — «quoted».\r\n\tIndented.\n'.repeat(50)), 'book.epub');
    expect(book).toEqual({ format: 'txt', metadata: {}, cover: null });
  });
});
