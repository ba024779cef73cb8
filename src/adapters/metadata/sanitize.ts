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

// C0/C1 controls except tab/newline, plus bidi overrides and zero-width/format characters.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF\uFFFE\uFFFF]/g;
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

/** `YYYY`, `YYYY-MM` or `YYYY-MM-DD` from the common date spellings (ISO, PDF `D:2019...`). */
export function normaliseDate(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = /^\s*(?:D:)?(\d{4})(?:-?(\d{2})(?:-?(\d{2}))?)?/.exec(value.slice(0, 64));
  if (!m) return null;
  const [, y, mo, d] = m;
  const year = Number(y);
  if (year < 1 || year > 9999) return null;
  if (!mo || Number(mo) < 1 || Number(mo) > 12) return y!;
  if (!d) return `${y}-${mo}`;
  const days = new Date(Date.UTC(year, Number(mo), 0)).getUTCDate();
  return Number(d) >= 1 && Number(d) <= days ? `${y}-${mo}-${d}` : `${y}-${mo}`;
}

/** Splits an author field on `;`, `&` and ` and `. */
export function splitAuthors(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return value.slice(0, 20_000).split(/\s*[;&]\s*|\s+and\s+/i).filter((s) => s.trim() !== '');
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
    const index = cleanSeriesIndex(raw.seriesIndex);
    if (index !== null) out.seriesIndex = index;
  }
  return out;
}
