import { z } from 'zod';
import { koboProgressDeviceId } from '../../application/use-cases/sync-kobo-library.js';
import { invalidInput } from '../../domain/error-catalogue.js';
import { PROGRESS_LIMITS, type ProgressUpdate, type ReadingProgress } from '../../domain/reading-progress.js';
import { KOBO_LOCATOR_PREFIX, STATUS_FROM_KOBO } from './kobo-wire.js';

/** What a Kobo sends in `PUT /v1/library/{id}/state` (other fields it sends are accepted and ignored). */
const StateBody = z.object({
  ReadingStates: z.array(z.object({
    CurrentBookmark: z.object({
      ProgressPercent: z.number().min(0).max(100).nullish(),
      ContentSourceProgressPercent: z.number().min(0).max(100).nullish(),
      Location: z.object({ Value: z.string().max(500), Type: z.string().max(100), Source: z.string().max(1000) }).nullish(),
    }).nullish(),
    StatusInfo: z.object({ Status: z.enum(['ReadyToRead', 'Reading', 'Finished']).nullish() }).nullish(),
  })).min(1).max(10),
});

/**
 * The Stacks progress a Kobo's state update stands for: `ProgressPercent` / 100, the status
 * (ReadyToRead → unread, Reading → reading, Finished → finished), and the Kobo location kept whole in
 * the locator as `kobo:` + JSON, so it goes back to the Kobo exactly. A missing percentage keeps the
 * current one (0 for ReadyToRead, 1 for Finished); a missing status follows the percentage.
 */
export function progressFromKobo(body: unknown, current: ReadingProgress, device: { name: string; id: string }): ProgressUpdate {
  const parsed = StateBody.safeParse(body);
  if (!parsed.success) {
    throw invalidInput('The reading state is invalid.', parsed.error.issues.map((i) => ({ field: i.path.join('.') || '(root)', message: i.message })));
  }
  const state = parsed.data.ReadingStates[0]!;
  const bookmark = state.CurrentBookmark;
  const status = state.StatusInfo?.Status ? STATUS_FROM_KOBO[state.StatusInfo.Status] : undefined;
  const percentage = typeof bookmark?.ProgressPercent === 'number' ? bookmark.ProgressPercent / 100
    : status === 'finished' ? 1 : status === 'unread' ? 0 : current.percentage;
  const location = bookmark?.Location
    ? `${KOBO_LOCATOR_PREFIX}${JSON.stringify({ ...bookmark.Location, ContentSourceProgressPercent: bookmark.ContentSourceProgressPercent ?? null })}`
    : null;
  return {
    percentage,
    ...(status ? { status } : {}),
    locator: location && location.length <= PROGRESS_LIMITS.locator ? location : current.locator,
    device: `Kobo (${device.name})`.slice(0, PROGRESS_LIMITS.device),
    deviceId: koboProgressDeviceId(device.id),
  };
}
