import { open } from 'node:fs/promises';
import { emptyFile, unsupportedBookFormat } from '../../domain/error-catalogue.js';
import { UnprocessableError, UnsupportedTypeError } from '../../domain/errors.js';
import { corrupt } from './limits.js';

/** What the bytes say the file is; `zip` is an archive that is not an EPUB (maybe a CBZ). */
export type SniffedFormat = 'epub' | 'zip' | 'pdf' | 'mobi' | 'fb2' | 'txt';

const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 1024;
const EPUB_MIMETYPE = 'application/epub+zip';

/** Reads at most `length` bytes at `position`. */
export async function readSlice(path: string, position: number, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buf, 0, length, position);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Decides the type from magic bytes and structure only (UP-03), never from the name.
 * Throws UnprocessableError for empty or truncated files and UnsupportedTypeError otherwise.
 */
export async function sniffFormat(path: string, size: number): Promise<SniffedFormat> {
  if (size === 0) throw emptyFile();
  const head = await readSlice(path, 0, Math.min(size, HEAD_BYTES));
  if (head.length !== Math.min(size, HEAD_BYTES)) throw corrupt('The file is shorter than its recorded size.');
  const ascii = (from: number, to: number) => head.subarray(from, to).toString('latin1');

  if (ascii(0, 4) === 'PK\x03\x04') return isEpubMimetypeEntry(head) ? 'epub' : 'zip';
  if (ascii(0, 4) === 'PK\x05\x06') return 'zip';
  if (ascii(0, 5) === '%PDF-') {
    const tail = size <= HEAD_BYTES ? head.subarray(Math.max(0, size - TAIL_BYTES)) : await readSlice(path, size - TAIL_BYTES, TAIL_BYTES);
    if (!tail.includes('%%EOF')) throw corrupt('The PDF is truncated (no %%EOF trailer).');
    return 'pdf';
  }
  if (size >= 78 && ascii(60, 68) === 'BOOKMOBI') return 'mobi';
  if (isFictionBook(head)) return 'fb2';
  if (await isPlainText(path, size)) return 'txt';
  throw unsupportedBookFormat();
}

/** First local header is a stored `mimetype` entry holding exactly the EPUB media type. */
function isEpubMimetypeEntry(head: Buffer): boolean {
  if (head.length < 30) return false;
  const method = head.readUInt16LE(8);
  const nameLength = head.readUInt16LE(26);
  const extraLength = head.readUInt16LE(28);
  const dataStart = 30 + nameLength + extraLength;
  if (method !== 0 || head.subarray(30, 30 + nameLength).toString('latin1') !== 'mimetype') return false;
  const size = head.readUInt32LE(22);
  const content = head.subarray(dataStart, dataStart + Math.min(size, 64)).toString('latin1');
  return content.trim() === EPUB_MIMETYPE;
}

/** XML (any ASCII-compatible encoding, optional BOM) whose root element is FictionBook. */
function isFictionBook(head: Buffer): boolean {
  let text = head.toString('latin1');
  if (text.startsWith('\xEF\xBB\xBF')) text = text.slice(3);
  let i = 0;
  for (;;) {
    i = text.indexOf('<', i);
    if (i < 0 || i > 16 * 1024) return false;
    if (text.startsWith('<?', i)) i = text.indexOf('?>', i);
    else if (text.startsWith('<!--', i)) i = text.indexOf('-->', i);
    else if (text.startsWith('<!', i)) i = text.indexOf('>', i);
    else return /^<([A-Za-z_][\w.-]*:)?FictionBook[\s>/]/.test(text.slice(i, i + 64));
    if (i < 0) return false;
  }
}

/** Valid UTF-8 throughout, no NUL bytes, at most 0.5% other control characters, not markup. */
async function isPlainText(path: string, size: number): Promise<boolean> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let sample = '';
  try {
    const handle = await open(path, 'r');
    try {
      const buf = Buffer.alloc(Math.min(size, 1024 * 1024));
      for (let position = 0; position < size; ) {
        const { bytesRead } = await handle.read(buf, 0, buf.length, position);
        if (bytesRead === 0) break;
        const chunk = buf.subarray(0, bytesRead);
        if (chunk.includes(0)) return false;
        const decoded = decoder.decode(chunk, { stream: true });
        if (position === 0) sample = decoded.slice(0, HEAD_BYTES);
        position += bytesRead;
      }
      decoder.decode();
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof TypeError) return false;
    throw error;
  }
  const start = sample.replace(/^\uFEFF/, '').trimStart();
  if (start.length === 0 || start.startsWith('<') || /<(html|script|body|svg|iframe)\b/i.test(start.slice(0, 1024))) return false;
  const controls = sample.match(/[\u0001-\u0008\u000B\u000E-\u001F\u007F]/g)?.length ?? 0;
  return controls <= sample.length * 0.005;
}
