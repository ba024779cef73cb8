import { bookCoverKey, bookFileKey, type BookFormat } from './book.js';
import { bookIdOfDerivedKey } from './derived-blobs.js';

/** Longest display file name stem, in characters (the extension comes on top). */
export const FILE_NAME_STEM_MAX = 150;

// Controls (CR/LF included), bidi overrides and isolates, zero-width space and BOM (ZWNJ and ZWJ are spelling).
const INVISIBLE = /[\u0000-\u001F\u007F-\u009F\u200B\u200E\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/g;
// Characters that are unsafe or awkward in a file name on some system.
const RESERVED = /[<>:"|?*\\/]/g;
const EXTENSION = /\.[A-Za-z0-9]{1,5}$/;

/** A safe file-name stem from a client's file name (directories dropped) or a title; null when nothing usable is left. */
export function fileNameStem(raw: string | null | undefined, isPath = true): string | null {
  if (!raw) return null;
  const base = isPath ? (raw.split(/[/\\]/).pop() ?? '') : raw;
  let stem = base.normalize('NFC').replace(INVISIBLE, '').replace(RESERVED, '_');
  if (isPath) stem = stem.replace(EXTENSION, '');
  stem = stem.replace(/\s+/g, ' ').replace(/^[\s.]+|[\s.]+$/g, '');
  const chars = [...stem];
  if (chars.length > FILE_NAME_STEM_MAX) stem = chars.slice(0, FILE_NAME_STEM_MAX).join('').replace(/[\s.]+$/, '');
  return stem === '' ? null : stem;
}

/**
 * The display name used for downloads: the client's name (directories, controls, CR/LF and bidi
 * characters removed, length capped), else the title, else `book`; always with the extension of
 * the format detected from the content. Never used as a storage path.
 */
export function displayFileName(clientName: string | null | undefined, format: BookFormat, title: string): string {
  return `${fileNameStem(clientName) ?? fileNameStem(title, false) ?? 'book'}.${format}`;
}

/** The book id a blob key belongs to, or null for a key that is not a book's file, cover or a blob made from them. */
export function bookIdOfBlobKey(key: string): string | null {
  const match = /^(.+)\.(book|cover)$/.exec(key);
  if (!match) return bookIdOfDerivedKey(key);
  const id = match[1]!;
  return key === bookFileKey(id) || key === bookCoverKey(id) ? id : null;
}
