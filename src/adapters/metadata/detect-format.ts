import { open } from 'node:fs/promises';
import { emptyFile, unsupportedBookFormat } from '../../domain/error-catalogue.js';
import { UnprocessableError, UnsupportedTypeError } from '../../domain/errors.js';
import { corrupt } from './limits.js';

/** What the bytes say the file is; a `zip` is an EPUB or a CBZ by what it holds. */
export type SniffedFormat = 'zip' | 'pdf' | 'mobi' | 'fb2' | TextEncoding;

/** A plain-text file and the encoding its bytes are in (the file is stored as uploaded). */
export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

const HEAD_BYTES = 64 * 1024;
const TAIL_BYTES = 1024;

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

  if (ascii(0, 4) === 'PK\x03\x04' || ascii(0, 4) === 'PK\x05\x06') return 'zip';
  if (ascii(0, 5) === '%PDF-') {
    const tail = size <= HEAD_BYTES ? head.subarray(Math.max(0, size - TAIL_BYTES)) : await readSlice(path, size - TAIL_BYTES, TAIL_BYTES);
    if (!tail.includes('%%EOF')) throw corrupt('The PDF is truncated (no %%EOF trailer).');
    return 'pdf';
  }
  if (size >= 78 && ascii(60, 68) === 'BOOKMOBI') return 'mobi';
  if (isFictionBook(head)) return 'fb2';
  const text = await textEncoding(path, size, head);
  if (text) return text;
  throw unsupportedBookFormat();
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

/**
 * Plain text: UTF-16 with its byte-order mark, else valid UTF-8 throughout, else Windows-1252; never
 * NUL, at most 0.5% other control characters (C1 too for Windows-1252, whose five unused bytes decode
 * to them), and not markup.
 */
async function textEncoding(path: string, size: number, head: Buffer): Promise<TextEncoding | null> {
  if (head[0] === 0xff && head[1] === 0xfe) return (await looksLikeText(path, size, 'utf-16le')) ? 'utf-16le' : null;
  if (head[0] === 0xfe && head[1] === 0xff) return (await looksLikeText(path, size, 'utf-16be')) ? 'utf-16be' : null;
  if (await looksLikeText(path, size, 'utf-8')) return 'utf-8';
  return (await looksLikeText(path, size, 'windows-1252')) ? 'windows-1252' : null;
}

async function looksLikeText(path: string, size: number, encoding: TextEncoding): Promise<boolean> {
  const decoder = new TextDecoder(encoding, { fatal: true });
  let sample = '';
  try {
    const handle = await open(path, 'r');
    try {
      const buf = Buffer.alloc(Math.min(size, 1024 * 1024));
      for (let position = 0; position < size; ) {
        const { bytesRead } = await handle.read(buf, 0, buf.length, position);
        if (bytesRead === 0) break;
        const decoded = decoder.decode(buf.subarray(0, bytesRead), { stream: true });
        if (decoded.includes('\0')) return false;
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
  const control = encoding === 'windows-1252' ? /[\u0001-\u0008\u000B\u000E-\u001F\u007F-\u009F]/g : /[\u0001-\u0008\u000B\u000E-\u001F\u007F]/g;
  const controls = sample.match(control)?.length ?? 0;
  return controls <= sample.length * 0.005;
}
