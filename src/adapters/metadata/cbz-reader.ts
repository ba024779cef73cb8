import type { ExtractedBook } from '../../application/ports.js';
import { unsupportedBookFormat } from '../../domain/error-catalogue.js';
import { readCover } from './epub-reader.js';
import type { MetadataLimits } from './limits.js';
import { child, parseXml, rawText, text } from './safe-xml.js';
import { finishMetadata, htmlToText, splitTags, type RawMetadata } from './sanitize.js';
import { ZipArchive } from './zip-archive.js';

const IMAGE_NAME = /\.(jpe?g|png|gif|webp)$/i;
const naturalOrder = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Reads a comic archive: ComicInfo.xml when present, and the first page in natural order as cover. */
export async function readCbz(path: string, limits: MetadataLimits): Promise<ExtractedBook> {
  const zip = await ZipArchive.open(path, limits);
  try {
    const files = zip.entries.filter((e) => !e.fileName.endsWith('/') && !isJunk(e.fileName));
    const images = files.filter((e) => IMAGE_NAME.test(e.fileName));
    if (images.length === 0 || images.length * 2 < files.length) {
      throw unsupportedBookFormat();
    }
    const info = files.find((e) => e.fileName.toLowerCase() === 'comicinfo.xml');
    const metadata = info ? comicInfo(parseXml(await zip.read(info, limits.maxXmlBytes), limits, ['*.Summary'])) : {};
    const first = [...images].sort((a, b) => naturalOrder.compare(a.fileName, b.fileName))[0]!;
    return { format: 'cbz', metadata: finishMetadata(metadata), cover: await readCover(zip, first.fileName, limits) };
  } finally {
    zip.close();
  }
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
