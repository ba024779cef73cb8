import { open } from 'node:fs/promises';
import type { ExtractedBook, ExtractedCover } from '../../application/ports.js';
import { readSlice } from './detect-format.js';
import { sniffImage } from './image-sniff.js';
import { corrupt, type MetadataLimits } from './limits.js';
import { attr, child, children, decodeXml, parseXml, rawText, text } from './safe-xml.js';
import { finishMetadata, htmlToText, splitTags, type RawMetadata } from './sanitize.js';

const SCAN_CHUNK = 1024 * 1024;
const TAG_WINDOW = 4096;

/**
 * Reads an FB2 description. Only the document head up to `</description>` is parsed (the body
 * and binaries never reach the XML parser); the cover is found by a bounded byte scan.
 */
export async function readFb2(path: string, size: number, limits: MetadataLimits): Promise<ExtractedBook> {
  const head = decodeXml(await readSlice(path, 0, Math.min(size, limits.maxXmlBytes)));
  const root = /<((?:[A-Za-z_][\w.-]*:)?FictionBook)[\s>/]/.exec(head);
  const end = /<\/(?:[A-Za-z_][\w.-]*:)?description\s*>/.exec(head);
  if (!root || !end) throw corrupt(`FB2 description missing or larger than ${limits.maxXmlBytes} bytes.`);
  const doc = parseXml(`${head.slice(0, end.index + end[0].length)}</${root[1]}>`, limits, ['*.annotation']);
  const description = child(child(doc, 'FictionBook'), 'description');
  const titleInfo = child(description, 'title-info');
  const publishInfo = child(description, 'publish-info');
  const coverRef = attr(child(child(titleInfo, 'coverpage'), 'image'), 'href');
  const cover = coverRef?.startsWith('#') ? await findBinary(path, size, coverRef.slice(1), limits.maxCoverBytes) : null;
  return { format: 'fb2', metadata: finishMetadata(fb2Metadata(titleInfo, publishInfo)), cover };
}

function fb2Metadata(titleInfo: unknown, publishInfo: unknown): RawMetadata {
  const field = (node: unknown, name: string) => text(child(node, name));
  const authors = children(titleInfo, 'author').map((a) =>
    ['first-name', 'middle-name', 'last-name'].map((n) => field(a, n)?.trim()).filter(Boolean).join(' ') || field(a, 'nickname'),
  );
  const sequence = child(titleInfo, 'sequence');
  const annotation = rawText(child(titleInfo, 'annotation'));
  return {
    title: field(titleInfo, 'book-title'),
    authors,
    tags: [...children(titleInfo, 'genre').map(text), ...splitTags(field(titleInfo, 'keywords'))],
    language: field(titleInfo, 'lang'),
    description: annotation === null ? null : htmlToText(annotation),
    // calibre reads the publication year only (title-info's date is the writing's, not the edition's).
    published: field(publishInfo, 'year'),
    series: attr(sequence, 'name'),
    seriesIndex: attr(sequence, 'number'),
    publisher: field(publishInfo, 'publisher'),
    isbn: [field(publishInfo, 'isbn')],
  };
}

/** Scans the file for `<binary id="...">` and decodes it when it is a small enough image. */
async function findBinary(path: string, size: number, id: string, maxBytes: number): Promise<ExtractedCover | null> {
  const handle = await open(path, 'r');
  try {
    let carry = Buffer.alloc(0);
    for (let position = 0; position < size; ) {
      const chunk = Buffer.alloc(Math.min(SCAN_CHUNK, size - position));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) break;
      const buf = Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
      const bufStart = position - carry.length;
      position += bytesRead;
      let at = 0;
      let keepFrom = Math.max(0, buf.length - 16);
      while ((at = buf.indexOf('<binary', at, 'latin1')) >= 0) {
        const gt = buf.indexOf('>', at);
        if (gt < 0 || gt - at > TAG_WINDOW) {
          if (gt < 0 && position < size && buf.length - at <= TAG_WINDOW) keepFrom = at;
          break;
        }
        const tag = buf.subarray(at, gt).toString('latin1');
        if (/\sid\s*=\s*["']([^"']*)["']/.exec(tag)?.[1] === id) {
          return await decodeBinary(handle, bufStart + gt + 1, maxBytes);
        }
        at = gt;
      }
      carry = buf.subarray(keepFrom);
    }
    return null;
  } finally {
    await handle.close();
  }
}

async function decodeBinary(handle: Awaited<ReturnType<typeof open>>, start: number, maxBytes: number): Promise<ExtractedCover | null> {
  // Base64 plus generous whitespace: anything longer holds an image over the cap.
  const window = Buffer.alloc(Math.ceil((maxBytes * 4) / 3) + 64 * 1024);
  const { bytesRead } = await handle.read(window, 0, window.length, start);
  const close = window.subarray(0, bytesRead).indexOf('</binary', 0, 'latin1');
  if (close < 0) return null;
  const data = Buffer.from(window.subarray(0, close).toString('latin1'), 'base64');
  if (data.length > maxBytes) return null;
  const mediaType = sniffImage(data);
  return mediaType ? { data: new Uint8Array(data), mediaType } : null;
}
