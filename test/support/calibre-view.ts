import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** test/fixtures/realworld: the corpus make.sh builds and calibre's view of it. */
export const CORPUS_DIR = fileURLToPath(new URL('../fixtures/realworld/', import.meta.url));

/** What calibre's `ebook-meta` reports for one file (expect.py). */
export interface CalibreView {
  readonly sha256: string;
  readonly title: string;
  readonly authors: readonly string[];
  readonly languages: readonly string[];
  readonly language_iso639_1: string | null;
  readonly series: string | null;
  readonly series_index: number | null;
  readonly identifiers: Readonly<Record<string, string>>;
  readonly published: string | null;
  readonly has_cover: boolean;
}

export function calibreViews(): { calibre: string; files: Record<string, CalibreView> } {
  return JSON.parse(readFileSync(`${CORPUS_DIR}expected.json`, 'utf8'));
}

/** The book fields compared, as the API shows them. */
export interface StacksBook {
  readonly title: string;
  readonly authors: readonly string[];
  readonly language: string | null;
  readonly series: string | null;
  readonly series_index: number | null;
  readonly isbn: string | null;
  readonly published: string | null;
  readonly has_cover: boolean;
  readonly format: string;
}

/**
 * Where Stacks deliberately reads a file differently from calibre: each rule says why, and is listed in
 * docs/clients.md ("Files and clients tried"). A rule only ever explains one field of one kind of file.
 */
export const RULES = {
  'length-limits': 'Stacks caps a title at 500 characters and an author at 200 (calibre keeps any length)',
  'file-name-pattern': 'a name is read from the file name as `Author - Title.ext` (calibre reads `Title - Author.ext`)',
  'partial-date': 'a date the file gives as a year or a month stays so; calibre fills in a day (the 15th, or June 2nd for FB2)',
  'calibre-day-shift': "calibre moves a date-only value off the first and last day of its month (utils/date.py fix_only_date); Stacks keeps the file's day",
  'pdf-cover-not-rendered': "calibre renders a PDF's first page as its cover; Stacks does not render pages",
  'isbn-scheme-variant': 'an identifier with the scheme ISBN-13 or ISBN-10 is the ISBN; calibre files it under that scheme name',
  'comicinfo-xml': "a comic's ComicInfo.xml is read (calibre 6 reads only the ComicBookInfo archive comment)",
  'xmp-replacement-characters': 'XMP text an encoder replaced with U+FFFD (ghostscript does for non-Latin titles) is ignored; the Info dictionary says it',
  'pdfjs-rc4-xmp': 'the XMP of a PDF encrypted with RC4 is unreadable to pdf.js, so the Info dictionary says it',
} as const;
export type Rule = keyof typeof RULES;

export interface Difference {
  readonly field: string;
  readonly stacks: unknown;
  readonly calibre: unknown;
  /** Why it differs on purpose; null is a failure. */
  readonly rule: Rule | null;
}

const FIXED_DAY = (date: string): string => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const day = d === last ? d - 1 : d === 1 ? 2 : d;
  return `${date.slice(0, 8)}${String(day).padStart(2, '0')}`;
};

function dateDifference(stacks: string | null, calibre: string | null): Difference | null {
  const shown = calibre?.slice(0, 10) ?? null;
  if (stacks === shown) return null;
  const base = { field: 'published', stacks, calibre };
  if (stacks !== null && shown !== null && stacks.length < 10 && shown.startsWith(stacks)) return { ...base, rule: 'partial-date' };
  if (stacks !== null && shown !== null && stacks.length === 10 && FIXED_DAY(stacks) === shown) return { ...base, rule: 'calibre-day-shift' };
  return { ...base, rule: null };
}

const sameLanguage = (stacks: string | null, calibre: CalibreView): boolean => {
  if (stacks === null || calibre.languages.length === 0) return stacks === null && calibre.languages.length === 0;
  const primary = stacks.split('-')[0]!.toLowerCase();
  return primary === calibre.language_iso639_1 || primary === calibre.languages[0];
};

/** What the bytes of a corpus file show, for the rules that only some files can invoke. */
export interface FileFacts {
  readonly comicInfoXml: boolean;
  readonly rc4Encrypted: boolean;
}

export function factsOf(bytes: Buffer): FileFacts {
  const latin = bytes.toString('latin1');
  return {
    comicInfoXml: latin.startsWith('PK') && latin.includes('ComicInfo.xml'),
    rc4Encrypted: latin.startsWith('%PDF') && /\/Filter\s*\/Standard/.test(latin) && /\/V\s+[12]\b/.test(latin),
  };
}

/** Every field where Stacks and calibre disagree, each with the rule that explains it (or none). */
export function differences(fileName: string, book: StacksBook, calibre: CalibreView, facts: FileFacts): Difference[] {
  const out: Difference[] = [];
  const differ = (field: string, stacks: unknown, theirs: unknown, rule: Rule | null) => out.push({ field, stacks, calibre: theirs, rule });
  const pdf = book.format === 'pdf';
  // One file-level reason covers every field it touches; otherwise the field's own rule, or none.
  const wholeFile: Rule | null = book.format === 'txt' && / - /.test(fileName) ? 'file-name-pattern'
    : facts.comicInfoXml ? 'comicinfo-xml' : facts.rc4Encrypted ? 'pdfjs-rc4-xmp' : null;

  if (book.title !== calibre.title) {
    const capped = [...calibre.title].length > 500 && calibre.title.startsWith(book.title);
    differ('title', book.title, calibre.title, capped ? 'length-limits' : pdf && calibre.title.includes('\uFFFD') ? 'xmp-replacement-characters' : wholeFile);
  }
  if (JSON.stringify(book.authors) !== JSON.stringify(calibre.authors)) {
    differ('authors', book.authors, calibre.authors, pdf && calibre.authors.some((a) => a.includes('\uFFFD')) ? 'xmp-replacement-characters' : wholeFile);
  }
  if (!sameLanguage(book.language, calibre)) differ('language', book.language, calibre.languages, wholeFile);
  if (book.series !== calibre.series || book.series_index !== calibre.series_index) {
    differ('series', [book.series, book.series_index], [calibre.series, calibre.series_index], wholeFile);
  }
  const calibreIsbn = calibre.identifiers['isbn'] ?? null;
  if (book.isbn !== calibreIsbn) {
    const variant = Object.entries(calibre.identifiers).find(([scheme]) => /^isbn-?1[03]$/.test(scheme))?.[1]?.replace(/[^0-9X]/g, '');
    differ('isbn', book.isbn, calibreIsbn, calibreIsbn === null && variant === book.isbn ? 'isbn-scheme-variant' : wholeFile);
  }
  const date = dateDifference(book.published, calibre.published);
  if (date) out.push(date.rule === null ? { ...date, rule: wholeFile } : date);
  if (book.has_cover !== calibre.has_cover) differ('has_cover', book.has_cover, calibre.has_cover, pdf && calibre.has_cover ? 'pdf-cover-not-rendered' : wholeFile);
  return out;
}
