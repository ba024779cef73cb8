import { posix } from 'node:path';
import type { ExtractedBook, ExtractedCover } from '../../application/ports.js';
import { sniffImage } from './image-sniff.js';
import { corrupt, type MetadataLimits } from './limits.js';
import { attr, child, children, parseXml, rawText, text, type XmlNode } from './safe-xml.js';
import { finishMetadata, htmlToText, type RawMetadata } from './sanitize.js';
import { ZipArchive } from './zip-archive.js';

const EPUB_MIMETYPE = 'application/epub+zip';

/** Reads OPF metadata and the cover image of an EPUB 2 or 3 file. */
export async function readEpub(path: string, limits: MetadataLimits): Promise<ExtractedBook> {
  const zip = await ZipArchive.open(path, limits);
  try {
    const first = zip.entries[0];
    if (!first || first.fileName !== 'mimetype' || first.relativeOffsetOfLocalHeader !== 0 || first.compressionMethod !== 0) {
      throw corrupt('The EPUB does not start with a stored mimetype entry.');
    }
    if ((await zip.read(first, 64)).toString('latin1').trim() !== EPUB_MIMETYPE) throw corrupt('Wrong EPUB mimetype.');
    const opfPath = await findOpfPath(zip, limits);
    const opfEntry = zip.get(opfPath);
    if (!opfEntry) throw corrupt('The EPUB package document is missing.');
    const opf = parseXml(await zip.read(opfEntry, limits.maxXmlBytes), limits, ['*.description']);
    const pkg = child(opf, 'package');
    const metadata = child(pkg, 'metadata');
    if (typeof pkg !== 'object' || typeof metadata !== 'object' || metadata === null) throw corrupt('The EPUB package document has no metadata.');
    const coverPath = resolveHref(posix.dirname(opfPath), findCoverHref(pkg as XmlNode, metadata as XmlNode));
    return { format: 'epub', metadata: finishMetadata(opfMetadata(metadata as XmlNode)), cover: await readCover(zip, coverPath, limits) };
  } finally {
    zip.close();
  }
}

/** The package document's path, from META-INF/container.xml (also the KEPUB converter's). */
export async function findOpfPath(zip: ZipArchive, limits: MetadataLimits): Promise<string> {
  const entry = zip.get('META-INF/container.xml');
  if (!entry) throw corrupt('The EPUB has no META-INF/container.xml.');
  const container = parseXml(await zip.read(entry, limits.maxXmlBytes), limits);
  const rootfiles = children(child(child(container, 'container'), 'rootfiles'), 'rootfile');
  const rootfile = rootfiles.find((r) => attr(r, 'media-type') === 'application/oebps-package+xml') ?? rootfiles[0];
  const fullPath = resolveHref('', attr(rootfile, 'full-path'));
  if (!fullPath) throw corrupt('The EPUB container names no package document.');
  return fullPath;
}

function opfMetadata(md: XmlNode): RawMetadata {
  const metas = children(md, 'meta');
  const refinements = (id: string | null, property: string) =>
    id ? metas.filter((m) => attr(m, 'refines') === `#${id}` && attr(m, 'property') === property).map(text) : [];
  const named = (name: string) => attr(metas.find((m) => attr(m, 'name') === name), 'content');

  const creators = children(md, 'creator').map((c) => {
    const role = attr(c, 'role') ?? refinements(attr(c, 'id'), 'role')[0] ?? null;
    return { name: text(c), role };
  });
  const authors = creators.filter((c) => c.role === null || c.role === 'aut');

  const identifiers = children(md, 'identifier');
  const isbnFirst = [
    ...identifiers.filter((i) => /isbn/i.test(attr(i, 'scheme') ?? '') || /^\s*urn:isbn:/i.test(text(i) ?? '')),
    ...identifiers,
  ].map(text);

  const dates = children(md, 'date');
  const date = dates.find((d) => attr(d, 'event') === 'publication') ?? dates[0];
  const description = rawText(child(md, 'description'));

  const collections = metas.filter((m) => attr(m, 'property') === 'belongs-to-collection');
  const collection =
    collections.find((c) => refinements(attr(c, 'id'), 'collection-type')[0] === 'series') ??
    (named('calibre:series') ? undefined : collections[0]);
  const series = collection
    ? { name: text(collection), index: refinements(attr(collection, 'id'), 'group-position')[0] }
    : { name: named('calibre:series'), index: named('calibre:series_index') };

  return {
    title: text(child(md, 'title')),
    authors: (authors.length > 0 ? authors : creators).map((c) => c.name),
    language: text(child(md, 'language')),
    isbn: isbnFirst,
    publisher: text(child(md, 'publisher')),
    published: text(date),
    tags: children(md, 'subject').map(text),
    description: description === null ? null : htmlToText(description),
    series: series.name,
    seriesIndex: series.index,
  };
}

/** EPUB 3 cover-image item, else the EPUB 2 `<meta name="cover">`, else an item that looks like one. */
function findCoverHref(pkg: XmlNode, md: XmlNode): string | null {
  const items = children(child(pkg, 'manifest'), 'item');
  const isImage = (i: unknown) => (attr(i, 'media-type') ?? '').startsWith('image/');
  const byProperty = items.find((i) => (attr(i, 'properties') ?? '').split(/\s+/).includes('cover-image'));
  if (byProperty) return attr(byProperty, 'href');
  const coverId = attr(children(md, 'meta').find((m) => attr(m, 'name') === 'cover'), 'content');
  if (coverId) {
    const item = items.find((i) => attr(i, 'id') === coverId) ?? items.find((i) => attr(i, 'href') === coverId && isImage(i));
    if (item) return attr(item, 'href');
  }
  const guess = items.find((i) => isImage(i) && /cover/i.test(`${attr(i, 'id') ?? ''} ${attr(i, 'href') ?? ''}`));
  return guess ? attr(guess, 'href') : null;
}

/** A path inside the archive for a relative href; null for remote or escaping references. */
export function resolveHref(baseDir: string, href: string | null): string | null {
  if (!href || href.length > 1000 || /^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/') || href.startsWith('\\')) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(href.split(/[#?]/)[0]!);
  } catch {
    return null;
  }
  const joined = posix.normalize(posix.join(baseDir === '.' ? '' : baseDir, decoded));
  if (joined.startsWith('../') || joined === '..' || joined.startsWith('/') || joined.includes('\0')) return null;
  return joined;
}

/** The image at path as a cover, or null when absent, oversized or not JPEG/PNG/GIF/WebP. */
export async function readCover(zip: ZipArchive, path: string | null, limits: MetadataLimits): Promise<ExtractedCover | null> {
  const entry = path ? zip.get(path) : undefined;
  if (!entry || entry.uncompressedSize > limits.maxCoverBytes) return null;
  const data = await zip.read(entry, limits.maxCoverBytes);
  const mediaType = sniffImage(data);
  return mediaType ? { data: new Uint8Array(data), mediaType } : null;
}
