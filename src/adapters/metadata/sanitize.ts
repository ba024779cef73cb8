import type { BookMetadata } from '../../domain/book.js';
import { BOOK_FIELD_LIMITS } from '../../domain/book-metadata.js';

/** Length caps for strings read from untrusted files (UP-11): the domain's field limits. */
export const FIELD_LIMITS = BOOK_FIELD_LIMITS;

/** What a format reader found, before capping; every value is still untrusted. */
export interface RawMetadata {
  title?: unknown;
  authors?: unknown[];
  description?: unknown;
  publisher?: unknown;
  language?: unknown;
  published?: unknown;
  isbn?: unknown[];
  tags?: unknown[];
  series?: unknown;
  seriesIndex?: unknown;
}

// C0/C1 controls except tab/newline, bidi overrides and zero-width/format characters; ZWNJ and ZWJ
// (U+200C, U+200D) stay: Persian, Indic scripts and emoji sequences are spelt with them.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B\u200E\u200F\u202A-\u202E\u2060-\u2069\uFEFF\uFFFE\uFFFF]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A trimmed, control-free, length-capped plain string, or null when nothing is left. */
export function cleanText(value: unknown, max: number, multiline = false): string | null {
  if (typeof value !== 'string') return null;
  // Cap early so a 1 MB value costs no more than a few times the cap.
  let s = value.length > max * 4 ? value.slice(0, max * 4) : value;
  s = s.replace(CONTROL, '').replace(LONE_SURROGATE, '');
  s = multiline
    ? s.replace(/\r\n?/g, '\n').replace(/[ \t]+/g, ' ').replace(/ *\n */g, '\n').replace(/\n{3,}/g, '\n\n')
    : s.replace(/\s+/g, ' ');
  s = s.trim();
  if (s.length > max) {
    const cut = s.codePointAt(max - 1)! > 0xffff ? max - 1 : max;
    s = s.slice(0, cut).trimEnd();
  }
  return s.length > 0 ? s : null;
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00A0',
};

/** Decodes the predefined XML entities and numeric references; never expands anything else. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,6});/g, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : '';
    }
    return NAMED_ENTITIES[ref] ?? whole;
  });
}

/** Turns XML-escaped HTML (or XHTML markup) into plain text with paragraph breaks. */
export function htmlToText(html: string): string {
  const capped = html.length > 200_000 ? html.slice(0, 200_000) : html;
  const strip = (t: string) =>
    t
      .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<\/?(p|div|br|li|ul|ol|h[1-6]|tr|blockquote|section|title|subtitle|empty-line)\b[^>]*>/gi, '\n')
      .replace(/<[^>]*>/g, '');
  return decodeEntities(strip(decodeEntities(capped)));
}

/** ISBN-10/13 as digits (and a final X for ISBN-10), or null when the value is not one. */
export function normaliseIsbn(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 100) return null;
  const stripped = value.trim().replace(/^(urn:isbn:|isbn(-1[03])?:?)\s*/i, '');
  if (!/^[0-9Xx\s-]+$/.test(stripped)) return null;
  const digits = stripped.replace(/[\s-]/g, '').toUpperCase();
  if (/^\d{13}$/.test(digits)) return isbn13Valid(digits) ? digits : null;
  if (/^\d{9}[\dX]$/.test(digits)) return isbn10Valid(digits) ? digits : null;
  return null;
}

function isbn13Valid(d: string): boolean {
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(d[i]) * (i % 2 === 0 ? 1 : 3);
  return sum % 10 === 0 && (d.startsWith('978') || d.startsWith('979'));
}

function isbn10Valid(d: string): boolean {
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (d[i] === 'X' ? 10 : Number(d[i])) * (10 - i);
  return sum % 11 === 0;
}

const DATE = /^\s*(?:D:)?(\d{4})(?:-?(\d{2})(?:-?(\d{2})(?:[T ]?(\d{2}):?(\d{2})(?::?(\d{2})(?:\.\d+)?)?\s*(Z|[+-]\d{2}(?::?'?\d{2}'?)?)?)?)?)?/;

/** calibre's "no date" (UNDEFINED_DATE is year 101): any year up to 101 means none. */
const UNDEFINED_YEAR = 101;

interface DateParts {
  readonly year: number;
  readonly month?: number;
  readonly day?: number;
  /** Minutes east of UTC when the value gives a time with an offset (Z is 0). */
  readonly offset?: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

function dateParts(value: unknown): DateParts | null {
  if (typeof value !== 'string') return null;
  const m = DATE.exec(value.slice(0, 64));
  if (!m) return null;
  const [, y, mo, d, hh, mm, ss, zone] = m;
  const year = Number(y);
  const month = mo && Number(mo) >= 1 && Number(mo) <= 12 ? Number(mo) : undefined;
  const days = month ? new Date(Date.UTC(year, month, 0)).getUTCDate() : 0;
  const day = month && d && Number(d) >= 1 && Number(d) <= days ? Number(d) : undefined;
  const time = day !== undefined && hh !== undefined;
  const sign = zone && zone !== 'Z' ? /^([+-])(\d{2})[:']?(\d{2})?/.exec(zone) : null;
  const offset = !time || zone === undefined ? undefined : sign ? (sign[1] === '-' ? -1 : 1) * (Number(sign[2]) * 60 + Number(sign[3] ?? 0)) : 0;
  return { year, month, day, offset, hour: time ? Number(hh) : 0, minute: time ? Number(mm) : 0, second: time ? Number(ss ?? 0) : 0 };
}

/** Milliseconds since the epoch in UTC (missing parts: the first month, day and hour), for ordering; -Infinity for calibre's no-date years. */
export function dateInstant(value: unknown): number | null {
  const p = dateParts(value);
  if (!p || p.year > 9999) return null;
  if (p.year <= UNDEFINED_YEAR) return -Infinity;
  const at = new Date(0);
  at.setUTCFullYear(p.year, (p.month ?? 1) - 1, p.day ?? 1);
  at.setUTCHours(p.hour, p.minute - (p.offset ?? 0), p.second);
  return at.getTime();
}

/**
 * `YYYY`, `YYYY-MM` or `YYYY-MM-DD` from the common date spellings (ISO 8601, PDF `D:2019...`).
 * A time with a UTC offset gives the UTC date, as calibre shows it; years up to 101 (calibre's
 * `0101-01-01` marker) are no date.
 */
export function normaliseDate(value: unknown): string | null {
  const p = dateParts(value);
  if (!p || p.year <= UNDEFINED_YEAR || p.year > 9999) return null;
  const year = String(p.year).padStart(4, '0');
  if (p.month === undefined) return year;
  if (p.day === undefined) return `${year}-${String(p.month).padStart(2, '0')}`;
  return new Date(dateInstant(value)!).toISOString().slice(0, 10);
}

/** calibre's `authors_split_regex` tweak: ", and ", " and ", " with " separate names too. */
const AUTHOR_JOINER = /,?\s+(?:and|with)\s+/gi;

/** Splits an author field as calibre's string_to_authors does: on `&` (`&&` is a literal `&`), ` and `, ` with `. */
export function splitAuthors(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return value
    .slice(0, 20_000)
    .replace(/&&/g, '\uFFFF')
    .replace(AUTHOR_JOINER, '&')
    .split('&')
    .map((name) => name.trim().replace(/\uFFFF/g, '&'))
    .filter((name) => name !== '');
}

/** Splits a keyword field on `,` and `;`. */
export function splitTags(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return value.slice(0, 50_000).split(/[,;]/);
}

function cleanList(values: unknown[] | undefined, each: number, max: number): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const v of values ?? []) {
    const s = cleanText(v, each);
    if (s === null || seen.has(s.toLowerCase())) continue;
    seen.add(s.toLowerCase());
    out.push(s);
    if (out.length >= max) break;
  }
  return out;
}

function cleanSeriesIndex(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim().slice(0, 20)) : NaN;
  return Number.isFinite(n) && n >= 0 && n <= 100_000 ? Math.round(n * 100) / 100 : null;
}

/** Caps, cleans and drops empty fields; the result holds plain strings and numbers only. */
export function finishMetadata(raw: RawMetadata): Partial<BookMetadata> {
  const out: { -readonly [K in keyof BookMetadata]?: BookMetadata[K] } = {};
  const title = cleanText(raw.title, FIELD_LIMITS.title);
  if (title) out.title = title;
  const authors = cleanList(raw.authors, FIELD_LIMITS.author, FIELD_LIMITS.authors);
  if (authors.length) out.authors = authors;
  const description = cleanText(raw.description, FIELD_LIMITS.description, true);
  if (description) out.description = description;
  const publisher = cleanText(raw.publisher, FIELD_LIMITS.publisher);
  if (publisher) out.publisher = publisher;
  const language = cleanText(raw.language, FIELD_LIMITS.language);
  if (language && /^[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*$/.test(language)) out.language = language.replace(/_/g, '-');
  const published = normaliseDate(raw.published);
  if (published) out.published = published;
  const isbn = (raw.isbn ?? []).map(normaliseIsbn).find((v) => v !== null);
  if (isbn) out.isbn = isbn;
  const tags = cleanList(raw.tags, FIELD_LIMITS.tag, FIELD_LIMITS.tags);
  if (tags.length) out.tags = tags;
  const series = cleanText(raw.series, FIELD_LIMITS.series);
  if (series) {
    out.series = series;
    // A series without a readable number is number 1, as calibre reads it.
    out.seriesIndex = cleanSeriesIndex(raw.seriesIndex) ?? 1;
  }
  return out;
}
