import { CONTAINER_XML } from '../../test/support/fixtures/epub.js';
import { zipBuffer } from '../../test/support/fixtures/zip.js';
import type { SeededRandom } from './seeded-random.js';

const WORDS = ['harbour', 'lantern', 'quiet', 'river', 'stone', 'winter', 'orchard', 'signal', 'copper', 'meadow', 'ember', 'north'];

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A minimal EPUB 3 package document. */
export function benchOpf(title: string, author: string, subject: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:bench:${xml(title)}</dc:identifier>
    <dc:title>${xml(title)}</dc:title>
    <dc:creator>${xml(author)}</dc:creator>
    <dc:language>en</dc:language>
    <dc:subject>${xml(subject)}</dc:subject>
  </metadata>
  <manifest><item id="ch1" href="ch1.xhtml" media-type="application/xhtml+xml"/></manifest>
  <spine><itemref idref="ch1"/></spine>
</package>`;
}

/** Seeded prose of about `bytes` bytes (valid UTF-8 plain text). */
export function prose(rnd: SeededRandom, bytes: number): string {
  const parts: string[] = [];
  let length = 0;
  while (length < bytes) {
    const word = rnd.pick(WORDS);
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ');
}

/** A small valid EPUB with its own title and author; `padBytes` of stored random bytes make it distinct and sized. */
export async function benchEpub(title: string, author: string, rnd: SeededRandom, padBytes = 0): Promise<Buffer> {
  const pad = Buffer.alloc(padBytes);
  for (let i = 0; i < padBytes; i += 4) pad.writeUInt32LE(Math.floor(rnd.next() * 2 ** 32), Math.min(i, padBytes - 4));
  const chapter = `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>1</title></head><body><p>${xml(prose(rnd, 400))}</p></body></html>`;
  return zipBuffer([
    { name: 'mimetype', data: 'application/epub+zip', store: true },
    { name: 'META-INF/container.xml', data: CONTAINER_XML('OEBPS/content.opf') },
    { name: 'OEBPS/content.opf', data: benchOpf(title, author, rnd.pick(WORDS)) },
    { name: 'OEBPS/ch1.xhtml', data: chapter },
    ...(padBytes > 0 ? [{ name: 'OEBPS/pad.bin', data: pad, store: true }] : []),
  ]);
}

/** A plain-text book of about `bytes` bytes whose first line names it. */
export function benchText(title: string, rnd: SeededRandom, bytes: number): Buffer {
  return Buffer.from(`${title}\n\n${prose(rnd, bytes)}\n`, 'utf8');
}
