import { DEFAULT_PAGE_SIZE, MAX_PAGE, MAX_PAGE_SIZE, type Page } from '../../../domain/page.js';
import { z } from '../zod.js';

const intParam = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `${name} must be a whole number`)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((v) => v ?? fallback)
    .openapi({ type: 'integer', minimum: min, maximum: max, default: fallback });

/** `page` (1-based) and `page_size` (1..MAX_PAGE_SIZE); out-of-range values are a 422, never clamped. */
export const pageQuery = {
  page: intParam('page', 1, MAX_PAGE, 1),
  page_size: intParam('page_size', 1, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE),
};

export const idParam = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be an id')
  .openapi({ description: 'Opaque id (URL-safe, at most 64 characters)', example: '01JD2X8Q4ZB6N5K7M9P3R2T1VW' });

export const timestamp = z.string().openapi({ format: 'date-time', example: '2026-11-22T10:00:00.000Z' });

export const ProblemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.string(),
    detail: z.string(),
    errors: z
      .array(z.object({ location: z.enum(['body', 'query', 'path', 'header']), field: z.string(), message: z.string() }))
      .optional(),
    book_id: z.string().optional(),
  })
  .openapi('Problem', { description: 'RFC 9457 problem details' });

/** The list envelope shared by every list endpoint. */
export function listOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      items: z.array(item),
      total: z.number().int(),
      page: z.number().int(),
      page_size: z.number().int(),
      total_pages: z.number().int(),
    })
    .openapi(name);
}

export function presentPage<T, R>(page: Page<T>, present: (item: T) => R) {
  return {
    items: page.items.map(present),
    total: page.total,
    page: page.page,
    page_size: page.pageSize,
    total_pages: page.totalPages,
  };
}
