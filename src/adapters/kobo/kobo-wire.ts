import { createHash } from 'node:crypto';
import type { KoboSyncEvent } from '../../application/use-cases/sync-kobo-library.js';
import type { Book } from '../../domain/book.js';
import type { ReadingStatus, StoredProgress } from '../../domain/reading-progress.js';
import type { Shelf } from '../../domain/shelf.js';

// The JSON shapes of the Kobo store API, as Calibre-Web (cps/kobo.py) and Komga (interfaces/api/kobo/dto) send them.

const PLACEHOLDER_ID = '00000000-0000-0000-0000-000000000001';
/** Where a Kobo location is kept in a progress `locator`: `kobo:` and the location as JSON. */
export const KOBO_LOCATOR_PREFIX = 'kobo:';

/** Kobo wire time: UTC, whole seconds, `Z`. */
export const koboTime = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

export const STATUS_TO_KOBO: Readonly<Record<ReadingStatus, string>> = { unread: 'ReadyToRead', reading: 'Reading', finished: 'Finished' };
export const STATUS_FROM_KOBO: Readonly<Record<string, ReadingStatus>> = { ReadyToRead: 'unread', Reading: 'reading', Finished: 'finished' };

/** A UUID-shaped id derived from a name (series ids, stable across syncs). */
function nameId(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export function bookEntitlement(bookId: string, created: Date, modified: Date, removed: boolean, now: Date) {
  return {
    Accessibility: 'Full', ActivePeriod: { From: koboTime(now) }, Created: koboTime(created), CrossRevisionId: bookId, Id: bookId,
    IsHiddenFromArchive: false, IsLocked: false, IsRemoved: removed, LastModified: koboTime(modified), OriginCategory: 'Imported',
    RevisionId: bookId, Status: 'Active',
  };
}

/** The download format Kobo is told: KEPUB for an EPUB (converted on download), PDF as it is. */
export const downloadFormat = (book: Pick<Book, 'format'>): string => (book.format === 'pdf' ? 'PDF' : 'KEPUB');

export function bookMetadata(book: Book, downloadUrl: string) {
  const published = book.published ? new Date(book.published.length === 4 ? `${book.published}-01-01` : book.published) : null;
  return {
    Categories: [PLACEHOLDER_ID],
    ContributorRoles: book.authors.map((name) => ({ Name: name })),
    Contributors: [...book.authors],
    CoverImageId: book.coverMediaType ? book.id : null,
    CrossRevisionId: book.id,
    CurrentDisplayPrice: { CurrencyCode: 'USD', TotalAmount: 0 },
    CurrentLoveDisplayPrice: { TotalAmount: 0 },
    Description: book.description,
    DownloadUrls: [{ DrmType: 'None', Format: downloadFormat(book), Size: book.fileSize, Url: downloadUrl, Platform: 'Generic' }],
    EntitlementId: book.id,
    ExternalIds: [],
    Genre: PLACEHOLDER_ID,
    IsEligibleForKoboLove: false,
    IsInternetArchive: false,
    IsPreOrder: false,
    IsSocialEnabled: true,
    ...(book.isbn ? { Isbn: book.isbn } : {}),
    Language: (book.language ?? 'en').slice(0, 2).toLowerCase(),
    PhoneticPronunciations: {},
    ...(published && !Number.isNaN(published.getTime()) ? { PublicationDate: koboTime(published) } : {}),
    Publisher: { Imprint: '', Name: book.publisher },
    RevisionId: book.id,
    ...(book.series ? { Series: { Name: book.series, Number: String(book.seriesIndex ?? 1), NumberFloat: book.seriesIndex ?? 1, Id: nameId(book.series) } } : {}),
    Title: book.title,
    WorkId: book.id,
  };
}

/** The metadata of a removed book: its id stands in for everything (as Komga sends it). */
function removedMetadata(bookId: string) {
  return {
    Categories: [PLACEHOLDER_ID], CoverImageId: null, CrossRevisionId: bookId, CurrentDisplayPrice: { CurrencyCode: 'USD', TotalAmount: 0 },
    CurrentLoveDisplayPrice: { TotalAmount: 0 }, DownloadUrls: [], EntitlementId: bookId, ExternalIds: [], Genre: PLACEHOLDER_ID,
    IsEligibleForKoboLove: false, IsInternetArchive: false, IsPreOrder: false, IsSocialEnabled: true, Language: 'en',
    PhoneticPronunciations: {}, RevisionId: bookId, Title: bookId, WorkId: bookId,
  };
}

/** The Kobo location kept in a locator, or null when the position came from elsewhere. */
export function koboLocation(locator: string | null): { Value: string; Type: string; Source: string } | null {
  if (!locator?.startsWith(KOBO_LOCATOR_PREFIX)) return null;
  try {
    const parsed = JSON.parse(locator.slice(KOBO_LOCATOR_PREFIX.length)) as Record<string, unknown>;
    const { Value, Type, Source } = parsed;
    return typeof Value === 'string' && typeof Type === 'string' && typeof Source === 'string' ? { Value, Type, Source } : null;
  } catch {
    return null;
  }
}

const percent = (fraction: number): number => Math.round(fraction * 10_000) / 100;

/** A book's reading state as Kobo reads it; a book without progress is ReadyToRead at 0 since the book was added. */
export function readingState(book: Pick<Book, 'id' | 'createdAt'>, progress: StoredProgress | null, clearedAt?: Date) {
  const modified = koboTime(progress?.updatedAt ?? clearedAt ?? book.createdAt);
  const status = progress?.status ?? 'unread';
  const location = koboLocation(progress?.locator ?? null);
  const sourcePercent = location ? contentSourcePercent(progress!.locator!) : null;
  return {
    EntitlementId: book.id,
    Created: koboTime(book.createdAt),
    LastModified: modified,
    PriorityTimestamp: modified,
    StatusInfo: { LastModified: modified, Status: STATUS_TO_KOBO[status], TimesStartedReading: status === 'unread' ? 0 : 1 },
    Statistics: { LastModified: modified },
    CurrentBookmark: {
      LastModified: modified,
      ...(progress ? { ProgressPercent: percent(progress.percentage) } : {}),
      ...(sourcePercent !== null ? { ContentSourceProgressPercent: sourcePercent } : {}),
      ...(location ? { Location: location } : {}),
    },
  };
}

function contentSourcePercent(locator: string): number | null {
  const value = (JSON.parse(locator.slice(KOBO_LOCATOR_PREFIX.length)) as Record<string, unknown>)['ContentSourceProgressPercent'];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function tag(shelf: Shelf, bookIds: readonly string[]) {
  return {
    Tag: {
      Created: koboTime(shelf.createdAt), Id: shelf.id, Items: bookIds.map((id) => ({ RevisionId: id, Type: 'ProductRevisionTagItem' })),
      LastModified: koboTime(shelf.updatedAt), Name: shelf.name, Type: 'UserTag',
    },
  };
}

/**
 * One sync event as the array items Kobo reads. A changed book also gets its reading state as a
 * ChangedReadingState: Kobo ignores the state inside a ChangedEntitlement (Komga's finding).
 */
export function syncItems(event: KoboSyncEvent, downloadUrl: (bookId: string) => string, now: Date): object[] {
  switch (event.type) {
    case 'book': {
      const { book, progress } = event;
      const entitlement = { BookEntitlement: bookEntitlement(book.id, book.createdAt, book.updatedAt, false, now), BookMetadata: bookMetadata(book, downloadUrl(book.id)) };
      if (event.isNew) return [{ NewEntitlement: { ...entitlement, ReadingState: readingState(book, progress) } }];
      return [{ ChangedEntitlement: entitlement }, ...(progress ? [{ ChangedReadingState: { ReadingState: readingState(book, progress) } }] : [])];
    }
    case 'book-removed':
      return [{ ChangedEntitlement: { BookEntitlement: bookEntitlement(event.bookId, event.at, event.at, true, now), BookMetadata: removedMetadata(event.bookId) } }];
    case 'tag':
      return [event.isNew ? { NewTag: tag(event.shelf, event.bookIds) } : { ChangedTag: tag(event.shelf, event.bookIds) }];
    case 'tag-removed':
      return [{ DeletedTag: { Tag: { Id: event.shelfId, LastModified: koboTime(event.at) } } }];
    case 'state':
      return [{ ChangedReadingState: { ReadingState: readingState(event.book, event.progress, event.at) } }];
  }
}
