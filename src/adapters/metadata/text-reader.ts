import type { ExtractedBook } from '../../application/ports.js';
import { readSlice, type TextEncoding } from './detect-format.js';
import { finishMetadata } from './sanitize.js';

/** calibre's txt.py: a title, three line breaks, an author line, within the first four lines. */
const TITLE_THEN_AUTHOR = /^ *(.+?) *(?:\n{3}|(?:\r\n){3}|\r{3}) *(.+?) *(?:\n|\r\n|\r)$/;

/**
 * A text file has no metadata but what calibre reads from its first four lines: `Title`, two empty
 * lines, `Author[, Author]`. calibre decodes those lines as UTF-8 only, so other encodings give nothing
 * (the title then comes from the file name, as in calibre).
 */
export async function readText(path: string, size: number, encoding: TextEncoding): Promise<ExtractedBook> {
  if (encoding !== 'utf-8') return { format: 'txt', metadata: {}, cover: null };
  const head = (await readSlice(path, 0, Math.min(size, 16 * 1024))).toString('utf8');
  const lines = head.match(/[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g)?.slice(0, 4) ?? [];
  const match = TITLE_THEN_AUTHOR.exec(lines.join('').slice(0, 1024));
  return {
    format: 'txt',
    metadata: match ? finishMetadata({ title: match[1], authors: match[2]!.split(',') }) : {},
    cover: null,
  };
}
