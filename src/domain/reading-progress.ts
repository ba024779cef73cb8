import { invalidInput } from './error-catalogue.js';

export const READING_STATUSES = ['unread', 'reading', 'finished'] as const;
export type ReadingStatus = (typeof READING_STATUSES)[number];

/** Longest values a progress record keeps; the HTTP schema imports these. */
export const PROGRESS_LIMITS = Object.freeze({ locator: 2_048, device: 100, deviceId: 100 });

/** One user's reading state of one book. `updatedAt` is null only for a book never opened. */
export interface ReadingProgress {
  readonly userId: string;
  readonly bookId: string;
  readonly status: ReadingStatus;
  /** 0..1. */
  readonly percentage: number;
  /** Opaque position (KOReader XPointer, EPUB CFI, page number). */
  readonly locator: string | null;
  readonly device: string | null;
  readonly deviceId: string | null;
  readonly updatedAt: Date | null;
}

/** A stored record always has a time. */
export type StoredProgress = ReadingProgress & { readonly updatedAt: Date };

export interface ProgressUpdate {
  readonly percentage: number;
  readonly locator?: string | null;
  readonly status?: ReadingStatus;
  readonly device?: string | null;
  readonly deviceId?: string | null;
}

/** The state of a book the user never opened (or whose progress was cleared). */
export function unreadProgress(userId: string, bookId: string): ReadingProgress {
  return { userId, bookId, status: 'unread', percentage: 0, locator: null, device: null, deviceId: null, updatedAt: null };
}

/** `finished` at 1, `reading` above 0, else `unread`. */
export function defaultStatus(percentage: number): ReadingStatus {
  if (percentage >= 1) return 'finished';
  return percentage > 0 ? 'reading' : 'unread';
}

/** The record a write stores: the status defaults from the percentage; out-of-range values are refused. */
export function recordProgress(userId: string, bookId: string, update: ProgressUpdate, now: Date): StoredProgress {
  if (!Number.isFinite(update.percentage) || update.percentage < 0 || update.percentage > 1) {
    throw invalidInput('The percentage must be between 0 and 1.', [{ field: 'percentage', message: 'must be between 0 and 1' }]);
  }
  tooLong('locator', update.locator, PROGRESS_LIMITS.locator);
  tooLong('device', update.device, PROGRESS_LIMITS.device);
  tooLong('device_id', update.deviceId, PROGRESS_LIMITS.deviceId);
  return {
    userId, bookId,
    status: update.status ?? defaultStatus(update.percentage),
    percentage: update.percentage,
    locator: update.locator ?? null,
    device: update.device ?? null,
    deviceId: update.deviceId ?? null,
    updatedAt: now,
  };
}

function tooLong(field: string, value: string | null | undefined, max: number): void {
  if (value && value.length > max) throw invalidInput(`The ${field} is longer than ${max} characters.`, [{ field, message: `must be at most ${max} characters` }]);
}
