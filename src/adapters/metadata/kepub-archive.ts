import { createWriteStream } from 'node:fs';
import { posix } from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import render from 'dom-serializer';
import { Element } from 'domhandler';
import { DomUtils, parseDocument } from 'htmlparser2';
import yazl from 'yazl';
import type { Entry } from 'yauzl';
import { findOpfPath, resolveHref } from './epub-reader.js';
import { kepubifyContent } from './kepub-content.js';
import { corrupt, type MetadataLimits } from './limits.js';
import { attr, child, children, decodeXml, parseXml } from './safe-xml.js';
import { ZipArchive } from './zip-archive.js';

/** Largest content document converted (a chapter); larger ones are refused. */
const MAX_CONTENT_BYTES = 16 * 1024 * 1024;
/** Largest other entry copied (images, fonts, media). */
const MAX_ENTRY_BYTES = 256 * 1024 * 1024;
const CONTENT_TYPES = new Set(['application/xhtml+xml', 'text/html']);
const CONTENT_EXTENSION = /\.(x?html?)$/i;
/** Entries already compressed: stored, not deflated again. */
const STORED = /\.(jpe?g|png|gif|webp|avif|mp3|mp4|m4a|ogg|woff2?|zip)$/i;

/**
 * Writes the KEPUB of the EPUB at `input` to `output`: the same entries in the same order, a stored
 * `mimetype` first, each XHTML content document of the manifest passed through kepubifyContent, the
 * package document given the EPUB 3 cover-image property Kobo needs, and every other entry's bytes
 * unchanged. The archive is checked as the metadata reader checks it (entry count, sizes, ratios,
 * names, symlinks, overlaps) and entries are read one at a time, so memory holds one entry.
 */
export async function convertEpubToKepub(input: string, output: string, limits: MetadataLimits): Promise<void> {
  const zip = await ZipArchive.open(input, limits);
  try {
    const opfPath = await findOpfPath(zip, limits);
    const opfEntry = zip.get(opfPath);
    if (!opfEntry) throw corrupt('The EPUB package document is missing.');
    const opfBytes = await zip.read(opfEntry, limits.maxXmlBytes);
    const contents = contentDocuments(opfBytes, opfPath, limits);
    const zipfile = new yazl.ZipFile();
    const written = createWriteStream(output, { mode: 0o600 });
    zipfile.outputStream.pipe(written);
    let failure: Error | null = null;
    const lazily = (produce: () => Promise<Buffer>) => {
      let started = false;
      return new Readable({
        read() {
          if (started) return;
          started = true;
          produce().then((data) => {
            this.push(data);
            this.push(null);
          }, (error: Error) => {
            failure ??= error;
            this.destroy(error);
          });
        },
      });
    };
    const mtime = new Date(Date.UTC(2000, 0, 1));
    zipfile.addBuffer(Buffer.from('application/epub+zip'), 'mimetype', { compress: false, mtime });
    for (const entry of zip.entries) {
      const name = entry.fileName;
      if (name === 'mimetype' || name.endsWith('/')) continue;
      const transform = name === opfPath ? () => Promise.resolve(Buffer.from(withCoverImage(opfBytes) ?? opfBytes))
        : contents.has(name) ? () => kepubEntry(zip, entry) : () => zip.read(entry, MAX_ENTRY_BYTES);
      zipfile.addReadStream(lazily(transform), name, { compress: !STORED.test(name), mtime: entry.getLastModDate() });
    }
    zipfile.end();
    await finished(written).catch((error: Error) => {
      throw failure ?? error;
    });
    if (failure) throw failure;
  } finally {
    zip.close();
  }
}

async function kepubEntry(zip: ZipArchive, entry: Entry): Promise<Buffer> {
  const bytes = await zip.read(entry, MAX_CONTENT_BYTES);
  const converted = kepubifyContent(decodeXml(bytes));
  return converted === null ? bytes : Buffer.from(converted, 'utf8');
}

/** The archive paths of the manifest's XHTML/HTML content documents. */
function contentDocuments(opf: Buffer, opfPath: string, limits: MetadataLimits): Set<string> {
  const items = children(child(child(parseXml(opf, limits), 'package'), 'manifest'), 'item');
  const base = posix.dirname(opfPath);
  return new Set(items.flatMap((item) => {
    const href = attr(item, 'href');
    const isContent = CONTENT_TYPES.has(attr(item, 'media-type') ?? '') || CONTENT_EXTENSION.test(href ?? '');
    const path = isContent ? resolveHref(base, href) : null;
    return path ? [path] : [];
  }));
}

/**
 * kepubify's transformOPFCoverImage: Kobo finds the cover only by the EPUB 3 `cover-image` property, so
 * the item an EPUB 2 `<meta name="cover">` names (else the item with id `cover`) gets it. Null when no
 * change is needed; the document has passed parseXml's checks (no DOCTYPE or ENTITY) already.
 */
function withCoverImage(opf: Buffer): string | null {
  const doc = parseDocument(decodeXml(opf).replace(/^\s*<\?xml[^>]*\?>/, ''), { xmlMode: true, decodeEntities: false });
  const elements = DomUtils.findAll(() => true, doc.children);
  const local = (el: Element) => el.name.slice(el.name.indexOf(':') + 1);
  const items = elements.filter((el) => local(el) === 'item');
  if (items.some((el) => (el.attribs['properties'] ?? '').split(/\s+/).includes('cover-image'))) return null;
  const coverId = elements.find((el) => local(el) === 'meta' && el.attribs['name'] === 'cover')?.attribs['content'] ?? 'cover';
  const item = items.find((el) => el.attribs['id'] === coverId && (el.attribs['media-type'] ?? '').startsWith('image/'));
  if (!item) return null;
  item.attribs['properties'] = [item.attribs['properties'], 'cover-image'].filter(Boolean).join(' ');
  return `<?xml version="1.0" encoding="utf-8"?>\n${render(doc, { xmlMode: true, decodeEntities: false, encodeEntities: false })}`;
}
