import type { BookMetadata } from './book.js';
import { fileNameStem } from './book-file-name.js';
import { invalidInput } from './error-catalogue.js';
import type { FieldError } from './errors.js';

/** Length caps of the metadata fields (characters, or entries for lists). */
export const BOOK_FIELD_LIMITS = {
  title: 500,
  author: 200,
  authors: 50,
  description: 10_000,
  publisher: 300,
  language: 35,
  tag: 100,
  tags: 100,
  series: 300,
  seriesIndex: 100_000,
  /** An ISBN as typed, hyphens and spaces included. */
  isbnInput: 20,
} as const;

/** Some metadata fields, as a person (override, PATCH) or a file gives them. */
export type MetadataPatch = { -readonly [K in keyof BookMetadata]?: BookMetadata[K] };

const UNTITLED = 'Untitled';
const LANGUAGE = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;
const PARTIAL_DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;
// C0/C1 controls (tab and newline are handled by the callers), bidi controls, zero-width space and BOM;
// ZWNJ and ZWJ stay (they are part of Persian, Indic and emoji spelling).
const INVISIBLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u200B\u200E\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/g;

const length = (s: string): number => [...s].length;

/** Control-free, whitespace-collapsed text (paragraphs kept when multiline); null when empty. */
export function cleanText(raw: string, multiline = false): string | null {
  let s = raw.replace(INVISIBLE, '');
  s = multiline
    ? s.replace(/\r\n?/g, '\n').replace(/[ \t]+/g, ' ').replace(/ *\n */g, '\n').replace(/\n{3,}/g, '\n\n')
    : s.replace(/\s+/g, ' ');
  s = s.trim();
  return s === '' ? null : s;
}

const truncate = (s: string, max: number): string => (length(s) > max ? [...s].slice(0, max).join('').trimEnd() : s);

/** `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, each a real calendar value. */
export function isPartialDate(value: string): boolean {
  const m = PARTIAL_DATE.exec(value);
  if (!m) return false;
  const year = Number(m[1]);
  if (year < 1 || m[2] === undefined) return year >= 1;
  const month = Number(m[2]);
  if (month < 1 || month > 12) return false;
  if (m[3] === undefined) return true;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  const day = Number(m[3]);
  return day >= 1 && day <= days;
}

/** An ISBN-10 or ISBN-13 with a valid check digit, as digits (and a final X); null otherwise. */
export function normalizeIsbn(raw: string): string | null {
  const digits = raw.replace(/[\s-]/g, '').toUpperCase();
  if (/^97[89]\d{10}$/.test(digits)) {
    const sum = [...digits].reduce((acc, d, i) => acc + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
    return sum % 10 === 0 ? digits : null;
  }
  if (/^\d{9}[\dX]$/.test(digits)) {
    const sum = [...digits].reduce((acc, d, i) => acc + (d === 'X' ? 10 : Number(d)) * (10 - i), 0);
    return sum % 11 === 0 ? digits : null;
  }
  return null;
}

type Mode = 'strict' | 'lenient';
type Problems = FieldError[];

function text(raw: string | null, field: string, max: number, mode: Mode, problems: Problems, multiline = false): string | null {
  const s = raw === null ? null : cleanText(raw, multiline);
  if (s === null || length(s) <= max) return s;
  if (mode === 'lenient') return truncate(s, max);
  problems.push({ field, message: `must be at most ${max} characters` });
  return s;
}

function list(raw: readonly string[], field: string, each: number, max: number, mode: Mode, problems: Problems): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const value of raw) {
    const s = text(value, field, each, mode, problems);
    if (s === null || seen.has(s.toLowerCase())) continue;
    seen.add(s.toLowerCase());
    out.push(s);
  }
  if (out.length <= max) return out;
  if (mode === 'strict') problems.push({ field, message: `must have at most ${max} entries` });
  return out.slice(0, max);
}

function checked<T>(value: T | null, ok: boolean, field: string, message: string, mode: Mode, problems: Problems): T | null {
  if (value === null || ok) return value;
  if (mode === 'strict') problems.push({ field, message });
  return null;
}

function normalize(patch: MetadataPatch, mode: Mode): { value: MetadataPatch; problems: Problems } {
  const p: Problems = [];
  const L = BOOK_FIELD_LIMITS;
  const out: MetadataPatch = {};
  if (patch.title !== undefined) {
    const title = text(patch.title, 'title', L.title, mode, p);
    if (title !== null) out.title = title;
    else if (mode === 'strict') p.push({ field: 'title', message: `must be 1-${L.title} characters after trimming` });
  }
  if (patch.authors !== undefined) out.authors = list(patch.authors, 'authors', L.author, L.authors, mode, p);
  if (patch.tags !== undefined) out.tags = list(patch.tags, 'tags', L.tag, L.tags, mode, p);
  if (patch.description !== undefined) out.description = text(patch.description, 'description', L.description, mode, p, true);
  if (patch.publisher !== undefined) out.publisher = text(patch.publisher, 'publisher', L.publisher, mode, p);
  if (patch.series !== undefined) out.series = text(patch.series, 'series', L.series, mode, p);
  if (patch.language !== undefined) {
    const language = text(patch.language, 'language', L.language, mode, p);
    out.language = checked(language, language !== null && LANGUAGE.test(language), 'language', 'must be a language tag like en or pt-BR', mode, p);
  }
  if (patch.published !== undefined) {
    const published = patch.published === null ? null : patch.published.trim() || null;
    out.published = checked(published, published !== null && isPartialDate(published), 'published', 'must be YYYY, YYYY-MM or YYYY-MM-DD', mode, p);
  }
  if (patch.isbn !== undefined) {
    const raw = patch.isbn === null ? null : patch.isbn.trim() || null;
    const isbn = raw === null ? null : normalizeIsbn(raw);
    out.isbn = checked(raw, isbn !== null, 'isbn', 'must be a valid ISBN-10 or ISBN-13', mode, p) === null ? null : isbn;
  }
  if (patch.seriesIndex !== undefined) {
    const n = patch.seriesIndex;
    out.seriesIndex = checked(n, n !== null && Number.isFinite(n) && n >= 0 && n <= L.seriesIndex, 'series_index', `must be a number from 0 to ${L.seriesIndex}`, mode, p);
  }
  return { value: out, problems: p };
}

/** Cleans what a person asked for; throws ValidationError naming every field that breaks a rule. */
export function normalizeMetadataPatch(patch: MetadataPatch): MetadataPatch {
  const { value, problems } = normalize(patch, 'strict');
  if (problems.length > 0) throw invalidInput('The book metadata is invalid.', problems);
  return value;
}

/** Cleans what a file says: values past a cap are truncated, invalid ones dropped. */
export function cleanFileMetadata(patch: MetadataPatch): MetadataPatch {
  const { value } = normalize(patch, 'lenient');
  if (value.title === null) delete value.title;
  return value;
}

/** Title and authors from a file name: `Author - Title.ext` or `Title.ext`. */
export function metadataFromFileName(fileName: string | null): { title: string; authors: string[] } {
  const stem = cleanText((fileNameStem(fileName) ?? '').replace(/_/g, ' ')) ?? '';
  const dash = stem.indexOf(' - ');
  if (dash > 0 && dash < stem.length - 3) {
    const author = truncate(stem.slice(0, dash).trim(), BOOK_FIELD_LIMITS.author);
    return { title: truncate(stem.slice(dash + 3).trim(), BOOK_FIELD_LIMITS.title), authors: [author] };
  }
  return { title: stem === '' ? UNTITLED : truncate(stem, BOOK_FIELD_LIMITS.title), authors: [] };
}

/** The stored metadata: overrides win over the file's metadata, which wins over the file name. */
export function mergeMetadata(overrides: MetadataPatch, fromFile: MetadataPatch, fileName: string | null): BookMetadata {
  const file = cleanFileMetadata(fromFile);
  const named = metadataFromFileName(fileName);
  const pick = <K extends keyof MetadataPatch>(key: K): MetadataPatch[K] => (overrides[key] !== undefined ? overrides[key] : file[key]);
  const authors = pick('authors');
  return {
    title: pick('title') ?? named.title,
    authors: authors && authors.length > 0 ? authors : named.authors,
    description: pick('description') ?? null,
    publisher: pick('publisher') ?? null,
    language: pick('language') ?? null,
    published: pick('published') ?? null,
    isbn: pick('isbn') ?? null,
    tags: pick('tags') ?? [],
    series: pick('series') ?? null,
    seriesIndex: pick('seriesIndex') ?? null,
  };
}
