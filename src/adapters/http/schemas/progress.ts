import { PROGRESS_LIMITS as L, READING_STATUSES } from '../../../domain/reading-progress.js';
import { z } from '../zod.js';
import { timestamp } from './common.js';
import { nameText } from './text.js';

export const ProgressSchema = z
  .object({
    book_id: z.string(),
    status: z.enum(READING_STATUSES),
    percentage: z.number().min(0).max(1),
    locator: z.string().nullable().openapi({ description: 'Opaque position: a KOReader XPointer, an EPUB CFI, a page number' }),
    device: z.string().nullable(),
    device_id: z.string().nullable(),
    updated_at: timestamp.nullable().openapi({ description: 'Null for a book never opened' }),
  })
  .strict()
  .openapi('ReadingProgress');

export const UpdateProgressBody = z
  .object({
    percentage: z.number().min(0).max(1),
    locator: z.string().max(L.locator).nullable().optional(),
    status: z.enum(READING_STATUSES).optional().openapi({ description: 'Defaults to reading above 0, finished at 1, else unread' }),
    device: nameText(L.device).nullable().optional(),
    device_id: nameText(L.deviceId).nullable().optional(),
  })
  .strict()
  .openapi('ProgressUpdate');
