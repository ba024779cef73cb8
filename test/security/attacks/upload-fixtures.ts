import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import {
  CONTAINER_XML, HOSTILE_OPF, anOpf, buildEpub, buildPdf, epubWithRawEntry, rawZip, seededBytes,
  writeManyEntriesZip, writeZipBombEpub, zipBuffer,
} from '../../support/fixtures/index.js';

/** Builds a file through a temporary path (the streaming fixture writers need one). */
async function viaFile(write: (path: string) => Promise<void>): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'stacks-sec-fx-'));
  try {
    await write(join(dir, 'f'));
    return await readFile(join(dir, 'f'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const epubSkeleton = (extra: Array<{ name: string; data: Buffer; unixMode?: number; offsetOverride?: number }>) => rawZip([
  { name: 'mimetype', data: Buffer.from('application/epub+zip') },
  { name: 'META-INF/container.xml', data: Buffer.from(CONTAINER_XML()) },
  { name: 'OEBPS/content.opf', data: Buffer.from(anOpf({ cover: false })) },
  ...extra,
]);

/** UP-04: five bomb shapes. */
export const BOMBS: Record<string, () => Promise<Buffer>> = {
  'gigabyte-of-zeros': () => viaFile((p) => writeZipBombEpub(p, 1024)),
  'hundred-thousand-entries': () => viaFile((p) => writeManyEntriesZip(p, 100_000)),
  'nested-zip-in-zip': async () => {
    const inner = await viaFile((p) => writeZipBombEpub(p, 256));
    return buildEpub({ extraEntries: [{ name: 'OEBPS/42.zip', data: await zipBuffer([{ name: 'a.zip', data: inner, store: true }]), store: true }] });
  },
  'overlapping-entries': async () => epubSkeleton([
    { name: 'OEBPS/a.xhtml', data: Buffer.from('x'.repeat(1000)), offsetOverride: 0 },
    { name: 'OEBPS/b.xhtml', data: Buffer.from('y'), offsetOverride: 0 },
  ]),
  'understated-size': () => viaFile((p) => writeZipBombEpub(p, 64, { lieAboutSize: true })),
};

/** UP-05: zip-slip names and a symlink entry. */
export const SLIPS: Record<string, { name: string; unixMode?: number; data: Buffer }> = {
  'dot-dot': { name: '../../../../tmp/stacks-pwned', data: Buffer.from('x') },
  absolute: { name: '/etc/stacks-x', data: Buffer.from('x') },
  backslashes: { name: '..\\..\\stacks-x', data: Buffer.from('x') },
  'drive-letter': { name: 'C:/stacks-x', data: Buffer.from('x') },
  symlink: { name: 'OEBPS/link', data: Buffer.from('/etc/passwd'), unixMode: 0o120777 },
};
export const slipEpub = (key: string) => epubWithRawEntry(SLIPS[key]!);

const quadratic = `<?xml version="1.0"?><!DOCTYPE package [<!ENTITY a "${'a'.repeat(100_000)}">]><package><metadata><title>${'&a;'.repeat(10_000)}</title></metadata></package>`;

/** UP-06: seven XML shapes inside the package document. */
export const XML: Record<string, string> = { ...HOSTILE_OPF, quadratic };

const pdfWith = (objects: string[], trailer = '<< /Root 1 0 R >>'): Buffer => {
  const body = objects.map((o, i) => `${i + 1} 0 obj\n${o}\nendobj\n`).join('');
  return Buffer.from(`%PDF-1.7\n${body}trailer\n${trailer}\n%%EOF\n`, 'latin1');
};

/** UP-07: six PDF shapes. */
export const PDFS: Record<string, () => Buffer> = {
  'cve-2024-4367-font': () => pdfWith([
    '<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    "<< /Type /Font /Subtype /Type1 /BaseFont /Evil /FontMatrix [1 0 0 1 0 (0\\); require\\('fs'\\).writeFileSync\\('/tmp/stacks-pdf-pwned','x'\\)] >>",
    '<< /Length 22 >>\nstream\nBT /F1 12 Tf (x) Tj ET\nendstream',
  ]),
  'hundred-million-pages': () => buildPdf({ pageCount: 100_000_000, info: { Title: 'Many pages' } }),
  'cyclic-parent': () => pdfWith([
    '<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 /Parent 3 0 R >>',
    '<< /Type /Pages /Kids [2 0 R] /Count 1 /Parent 2 0 R >>',
  ]),
  'deeply-nested-arrays': () => pdfWith(['<< /Type /Catalog /Pages 2 0 R >>', `<< /Type /Pages /Kids [] /Count 0 /X ${'['.repeat(100_000)}${']'.repeat(100_000)} >>`]),
  'fifty-mb-stream': () => Buffer.concat([
    Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Length 52428800 >>\nstream\n', 'latin1'),
    Buffer.alloc(50 * 1024 * 1024, 0x41), Buffer.from('\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1'),
  ]),
  truncated: () => buildPdf({ info: { Title: 'Cut' } }).subarray(0, 200),
};

/** UP-03: type confusion and polyglots. */
export const TYPES: Record<string, { name: string; bytes: () => Promise<Buffer> | Buffer; accepted?: string }> = {
  'pdf-named-epub': { name: 'real.epub', bytes: () => buildPdf({ info: { Title: 'Really a PDF' } }), accepted: 'pdf' },
  'html-named-epub': { name: 'evil.epub', bytes: () => Buffer.from('<!doctype html><html><script>alert(1)</script></html>') },
  'elf-named-epub': { name: 'evil.epub', bytes: () => Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), seededBytes(3, 4096)]) },
  'pdf-zip-polyglot': { name: 'poly.pdf', bytes: async () => Buffer.concat([buildPdf({ info: { Title: 'Poly' } }), await buildEpub({ title: 'Poly epub' })]) },
  // An EPUB is judged by its container and package document, as calibre judges it: the mimetype entry is never read.
  'html-in-mimetype': { name: 'mime.epub', bytes: () => buildEpub({ mimetype: 'application/epub+zip<html><script>alert(1)</script>' }), accepted: 'epub' },
  'random-bytes': { name: 'random.epub', bytes: () => seededBytes(77, 64 * 1024) },
  'zero-bytes': { name: 'empty.epub', bytes: () => Buffer.alloc(0) },
  'truncated-epub': { name: 'cut.epub', bytes: async () => (await buildEpub({ title: 'Cut short' })).subarray(0, 300) },
  'deflated-mimetype': { name: 'deflated.epub', bytes: () => buildEpub({ compressMimetype: true }), accepted: 'epub' },
  'epub-without-package': { name: 'hollow.epub', bytes: () => buildEpub({ container: '<container version="1.0"><rootfiles/></container>' }) },
  'svg-script': { name: 'x.svg', bytes: () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>') },
  'gzip-named-txt': { name: 'x.txt', bytes: () => Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), deflateRawSync(Buffer.alloc(1 << 20))]) },
};

/** UP-08: ten hostile file names. */
export const NAMES: readonly string[] = [
  '../../etc/passwd.txt', '..%2f..%2fx.txt', 'a\u0000b.txt', 'CON.txt', `${'n'.repeat(10_000)}.txt`,
  '\u202Egpj.exe.txt', 'a\r\nX-Injected: yes.txt', '/etc/shadow.txt', 'C:\\Windows\\win.ini.txt', '<script>alert(1)</script>.txt',
];
