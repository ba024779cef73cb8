import type { ReadingProgress } from '../../../domain/reading-progress.js';
import type { ProgressSchema } from '../schemas/progress.js';
import type { z } from '../zod.js';

/** The caller's reading state of a book: whitelisted, snake_case. */
export function presentProgress(progress: ReadingProgress) {
  return {
    book_id: progress.bookId,
    status: progress.status,
    percentage: progress.percentage,
    locator: progress.locator,
    device: progress.device,
    device_id: progress.deviceId,
    updated_at: progress.updatedAt?.toISOString() ?? null,
  } satisfies z.infer<typeof ProgressSchema>;
}
