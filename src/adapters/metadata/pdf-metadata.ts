import { dateInstant, splitAuthors, type RawMetadata } from './sanitize.js';

/** pdf.js's parsed XMP packet: values by lower-case `prefix:name`, a string or a list of strings. */
export interface XmpValues {
  get(name: string): unknown;
}

const INFO_KEYS = ['Title', 'Subject', 'Keywords', 'Author', 'Creator', 'Producer'] as const;

/**
 * The metadata of a PDF as calibre reads it (calibre/ebooks/metadata/pdf.py and xmp.py): the Info
 * dictionary, then the XMP packet wins (title, authors) unless the Info dictionary was modified after
 * it; date, language and publisher only ever come from XMP. Text that an encoder already replaced
 * with U+FFFD (ghostscript writes non-Latin titles so) is no value at all.
 */
export function pdfMetadata(info: Readonly<Record<string, unknown>>, xmp: XmpValues | null): RawMetadata {
  const own = (key: string): string | null => {
    const value = Object.hasOwn(info, key) ? info[key] : undefined;
    return typeof value === 'string' && value.trim() !== '' ? value : null;
  };
  const keywords = (own('Keywords') ?? '').split(',').map((k) => k.trim()).filter((k) => k !== '');
  const keywordIsbn = keywords.find((k) => checkIsbn(k) !== null) ?? null;
  const fromInfo = {
    title: own('Title'),
    authors: splitAuthors(own('Author')),
    tags: keywords.filter((k) => k !== keywordIsbn),
    description: own('Subject'),
  };
  const isbn = [keywordIsbn, ...INFO_KEYS.map((k) => own(k)).filter((v) => checkIsbn(v) !== null)].map(checkIsbn);
  if (!xmp) return { ...fromInfo, isbn };

  const list = (name: string): string[] => [xmp.get(name) ?? []].flat().filter((v): v is string => typeof v === 'string' && v.trim() !== '' && !v.includes('\uFFFD'));
  const creators = list('dc:creator').flatMap(splitAuthors);
  const subjects = list('dc:subject');
  const metadataDate = Math.max(...['xmp:metadatadate', 'xmp:modifydate'].map((n) => dateInstant(list(n)[0]) ?? -Infinity));
  const infoDate = dateInstant(own('ModDate'));
  const preferInfo = infoDate !== null && Number.isFinite(metadataDate) && infoDate > metadataDate;
  return {
    title: preferInfo ? fromInfo.title : (list('dc:title')[0] ?? fromInfo.title),
    authors: preferInfo || creators.length === 0 ? fromInfo.authors : creators,
    tags: preferInfo || subjects.length === 0 ? fromInfo.tags : subjects,
    description: fromInfo.description ?? list('dc:description')[0] ?? null,
    published: list('dc:date')[0] ?? list('xmp:createdate')[0] ?? null,
    language: list('dc:language')[0] ?? null,
    publisher: list('dc:publisher')[0] ?? null,
    isbn: [...['prism:isbn', 'pdfx:isbn', 'dc:identifier'].map((n) => checkIsbn(list(n)[0])), ...isbn],
  };
}

/** calibre's check_isbn: the digits (and X) of the value, a valid ISBN-10 or ISBN-13, not one digit repeated. */
export function checkIsbn(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 200) return null;
  const digits = value.toUpperCase().replace(/[^0-9X]/g, '');
  if ((digits.length !== 10 && digits.length !== 13) || /^(\d)\1+$/.test(digits)) return null;
  const weights = digits.length === 10 ? [10, 9, 8, 7, 6, 5, 4, 3, 2, 1] : [1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1];
  const values = [...digits].map((c, i) => (c === 'X' && i === 9 && digits.length === 10 ? 10 : Number(c)));
  if (values.some(Number.isNaN)) return null;
  const sum = values.reduce((acc, v, i) => acc + v * weights[i]!, 0);
  return sum % (digits.length === 10 ? 11 : 10) === 0 ? digits : null;
}
