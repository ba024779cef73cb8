import type { ExtractedBook } from '../../application/ports.js';
import { unsupportedBookFormat } from '../../domain/error-catalogue.js';
import { readCover } from './epub-reader.js';
import type { MetadataLimits } from './limits.js';
import { child, parseXml, rawText, text } from './safe-xml.js';
import { finishMetadata, htmlToText, splitTags, type RawMetadata } from './sanitize.js';
import type { ZipArchive } from './zip-archive.js';

const IMAGE_NAME = /\.(jpe?g|png|gif|webp)$/i;
const naturalOrder = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/**
 * Reads a comic archive: ComicInfo.xml when present, else (and for what it leaves out) the ComicBookInfo
 * JSON of the archive comment, which is what calibre reads; the first page in natural order is the cover.
 */
export async function readCbzArchive(zip: ZipArchive, limits: MetadataLimits): Promise<ExtractedBook> {
  const files = zip.entries.filter((e) => !e.fileName.endsWith('/') && !isJunk(e.fileName));
  const images = files.filter((e) => IMAGE_NAME.test(e.fileName));
  if (images.length === 0 || images.length * 2 < files.length) {
    throw unsupportedBookFormat();
  }
  const info = files.find((e) => e.fileName.toLowerCase() === 'comicinfo.xml');
  const fromXml = info ? comicInfo(parseXml(await zip.read(info, limits.maxXmlBytes), limits, ['*.Summary'])) : {};
  const metadata = { ...comicBookInfo(await zip.comment()), ...definedOnly(fromXml) };
  const first = [...images].sort((a, b) => naturalOrder.compare(a.fileName, b.fileName))[0]!;
  return { format: 'cbz', metadata: finishMetadata(metadata), cover: await readCover(zip, first.fileName, limits) };
}

const definedOnly = (raw: RawMetadata): RawMetadata =>
  Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0)));

const CREATOR_ROLES = ['Writer', 'Artist', 'Cartoonist', 'Creator'];

/** ComicBookInfo/1.0 in the archive comment, read as calibre's get_comic_book_info reads it (series number: the volume, else the issue). */
function comicBookInfo(comment: string): RawMetadata {
  if (!comment.trimStart().startsWith('{')) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(comment);
  } catch {
    return {};
  }
  const key = typeof parsed === 'object' && parsed !== null ? Object.keys(parsed).find((k) => k.startsWith('ComicBookInfo')) : undefined;
  const info = key ? ((parsed as Record<string, unknown>)[key] as Record<string, unknown>) : null;
  if (typeof info !== 'object' || info === null) return {};
  const str = (v: unknown) => (typeof v === 'string' ? v.trim() : null);
  const credits = Array.isArray(info['credits']) ? (info['credits'] as Record<string, unknown>[]) : [];
  const year = typeof info['publicationYear'] === 'number' ? info['publicationYear'] : null;
  const month = typeof info['publicationMonth'] === 'number' ? info['publicationMonth'] : null;
  return {
    title: str(info['title']),
    series: str(info['series']),
    seriesIndex: info['volume'] ?? info['issue'],
    publisher: str(info['publisher']),
    authors: credits
      .filter((c) => typeof c === 'object' && c !== null && CREATOR_ROLES.includes(String(c['role'])))
      .map((c) => str(c['person'])?.split(', ').reverse().join(' ')),
    tags: Array.isArray(info['tags']) ? info['tags'] : [],
    description: str(info['comments']),
    published: year === null ? null : month === null ? String(year).padStart(4, '0') : `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`,
  };
}

function isJunk(name: string): boolean {
  return name.startsWith('__MACOSX/') || /(^|\/)\./.test(name) || /(^|\/)thumbs\.db$/i.test(name);
}

function comicInfo(doc: unknown): RawMetadata {
  const root = child(doc, 'ComicInfo');
  const field = (name: string) => text(child(root, name));
  const [year, month, day] = [field('Year'), field('Month'), field('Day')].map((v) => (v && /^\d{1,4}$/.test(v.trim()) ? v.trim() : null));
  const pad = (v: string) => v.padStart(2, '0');
  const published = year ? [year.padStart(4, '0'), month && pad(month), month && day && pad(day)].filter(Boolean).join('-') : null;
  const summary = rawText(child(root, 'Summary'));
  return {
    title: field('Title'),
    series: field('Series'),
    seriesIndex: field('Number'),
    authors: splitTags(field('Writer')),
    publisher: field('Publisher'),
    description: summary === null ? null : htmlToText(summary),
    published,
    tags: [...splitTags(field('Genre')), ...splitTags(field('Tags'))],
    language: field('LanguageISO'),
  };
}
