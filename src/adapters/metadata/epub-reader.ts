import { posix } from 'node:path';
import type { ExtractedBook, ExtractedCover } from '../../application/ports.js';
import { sniffImage } from './image-sniff.js';
import { corrupt, type MetadataLimits } from './limits.js';
import { readOpf } from './opf-metadata.js';
import { attr, child, children, parseXml, type XmlNode } from './safe-xml.js';
import { finishMetadata } from './sanitize.js';
import type { ZipArchive } from './zip-archive.js';

/**
 * Reads OPF metadata and the cover image of an EPUB 2 or 3 file already opened as a ZIP. It is an EPUB
 * by its content (META-INF/container.xml naming a package document that parses), whatever its
 * `mimetype` entry does: calibre and e-readers open EPUBs whose `mimetype` is missing, compressed or
 * not first, so Stacks does too.
 */
export async function readEpubArchive(zip: ZipArchive, limits: MetadataLimits): Promise<ExtractedBook> {
  const opfPath = await findOpfPath(zip, limits);
  const opfEntry = zip.get(opfPath);
  if (!opfEntry) throw corrupt('The EPUB package document is missing.');
  const opf = parseXml(await zip.read(opfEntry, limits.maxXmlBytes), limits, ['*.description']);
  const pkg = child(opf, 'package');
  const metadata = child(pkg, 'metadata');
  if (typeof pkg !== 'object' || typeof metadata !== 'object' || metadata === null) throw corrupt('The EPUB package document has no metadata.');
  const read = readOpf(pkg as XmlNode, metadata as XmlNode);
  const coverPath = resolveHref(posix.dirname(opfPath), read.coverHref ?? guessCoverHref(pkg as XmlNode));
  return { format: 'epub', metadata: finishMetadata(read.metadata), cover: await readCover(zip, coverPath, limits) };
}

/** Whether a ZIP is an EPUB's container (the rest is for readEpubArchive to judge). */
export const isEpubContainer = (zip: ZipArchive): boolean => zip.get(CONTAINER) !== undefined;

const CONTAINER = 'META-INF/container.xml';

/** The package document's path, from META-INF/container.xml (also the KEPUB converter's). */
export async function findOpfPath(zip: ZipArchive, limits: MetadataLimits): Promise<string> {
  const entry = zip.get(CONTAINER);
  if (!entry) throw corrupt('The EPUB has no META-INF/container.xml.');
  const container = parseXml(await zip.read(entry, limits.maxXmlBytes), limits);
  const rootfiles = children(child(child(container, 'container'), 'rootfiles'), 'rootfile');
  const rootfile = rootfiles.find((r) => attr(r, 'media-type') === 'application/oebps-package+xml') ?? rootfiles[0];
  const fullPath = resolveHref('', attr(rootfile, 'full-path'));
  if (!fullPath) throw corrupt('The EPUB container names no package document.');
  return fullPath;
}

/**
 * No declared cover: a guide `cover` reference to an image, else an image item that looks like one.
 * (calibre renders the first page instead; Stacks renders nothing.)
 */
function guessCoverHref(pkg: XmlNode): string | null {
  const items = children(child(pkg, 'manifest'), 'item');
  const isImage = (i: unknown) => (attr(i, 'media-type') ?? '').startsWith('image/');
  const guide = children(child(pkg, 'guide'), 'reference').find((r) => /cover/i.test(attr(r, 'type') ?? ''));
  const fromGuide = items.find((i) => isImage(i) && attr(i, 'href') === attr(guide, 'href'));
  const guess = fromGuide ?? items.find((i) => isImage(i) && /cover/i.test(`${attr(i, 'id') ?? ''} ${attr(i, 'href') ?? ''}`));
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
