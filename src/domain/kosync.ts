import { invalidInput } from './error-catalogue.js';
import { PROGRESS_LIMITS } from './reading-progress.js';

/** Longest values a KOReader sync record keeps (KOReader's digests are 32 hex characters). */
export const SYNC_LIMITS = Object.freeze({ document: 128, progress: PROGRESS_LIMITS.locator, device: PROGRESS_LIMITS.device, deviceId: PROGRESS_LIMITS.deviceId });

/** Documents that match no book a user keeps; a push past it forgets the least recently synced. */
export const SYNC_DOCUMENTS_PER_USER = 10_000;

/** What KOReader pushes for one document: `progress` is its XPointer or page number, as a string. */
export interface SyncPush {
  readonly document: string;
  readonly progress: string;
  /** 0..1. */
  readonly percentage: number;
  readonly device: string;
  readonly deviceId: string;
}

/** What KOReader pulls for a document: the newest position, whoever wrote it, and when. */
export interface SyncState extends SyncPush {
  readonly updatedAt: Date;
}

/** A user's KOReader position in a document that matches no Stacks book. */
export interface SyncDocument extends SyncState {
  readonly userId: string;
}

/** The lookup form of a document digest: KOReader sends lowercase hex; upper case finds the same book. */
export const digestKey = (document: string): string => document.toLowerCase();

/** Whole seconds since the epoch, as kosync's `timestamp`. */
export const unixSeconds = (at: Date): number => Math.floor(at.getTime() / 1000);

/** Refuses a document digest that is empty or longer than SYNC_LIMITS.document. */
export function checkSyncDocument(document: string): string {
  if (document.length === 0 || document.length > SYNC_LIMITS.document) {
    throw invalidInput('The document is invalid.', [{ field: 'document', message: `must be 1 to ${SYNC_LIMITS.document} characters` }]);
  }
  return document;
}

/** Refuses a push the store must not keep: an empty or over-long field, a percentage outside 0..1. */
export function checkSyncPush(push: SyncPush): SyncPush {
  checkSyncDocument(push.document);
  const errors: { field: string; message: string }[] = [];
  if (!Number.isFinite(push.percentage) || push.percentage < 0 || push.percentage > 1) errors.push({ field: 'percentage', message: 'must be between 0 and 1' });
  const limits: [string, string, number][] = [
    ['progress', push.progress, SYNC_LIMITS.progress],
    ['device', push.device, SYNC_LIMITS.device], ['device_id', push.deviceId, SYNC_LIMITS.deviceId],
  ];
  for (const [field, value, max] of limits) if (value.length > max) errors.push({ field, message: `must be at most ${max} characters` });
  if (errors.length > 0) throw invalidInput('The sync progress is invalid.', errors);
  return push;
}
