import { SHELF_NAME_MAX } from '../../../domain/shelf.js';
import { SHELF_BOOKS_MAX, SHELF_DESCRIPTION_MAX } from '../../../domain/shelf-rules.js';
import { z } from '../zod.js';
import { idParam, listOf, pageQuery, timestamp } from './common.js';
import { nameText } from './text.js';

const OwnerSchema = z.object({ id: z.string(), username: z.string() }).strict().openapi('Owner');

export const ShelfSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    is_public: z.boolean(),
    owner: OwnerSchema,
    book_ids: z.array(z.string()).openapi({ description: 'The shelf\'s books, in shelf order' }),
    book_count: z.number().int(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .strict()
  .openapi('Shelf');

export const ShelfListSchema = listOf(ShelfSchema, 'ShelfList');

export const ShelfListQuery = z
  .object({ ...pageQuery, owner: z.enum(['me']).optional().openapi({ description: '`me`: only the caller\'s own shelves' }) })
  .strict();
export const ShelfBooksQuery = z.object(pageQuery).strict();

export const ShelfParams = z.object({ id: idParam }).strict();
export const ShelfBookParams = z.object({ id: idParam, book_id: idParam }).strict();

const name = nameText(SHELF_NAME_MAX * 4)
  .openapi({ description: `1-${SHELF_NAME_MAX} characters after trimming; unique per owner, case-insensitively`, example: 'To read' });
const description = z
  .string()
  .max(SHELF_DESCRIPTION_MAX * 2)
  .nullable()
  .openapi({ description: `At most ${SHELF_DESCRIPTION_MAX} characters after trimming; blank or null clears it` });
const bookIds = z
  .array(idParam)
  .max(SHELF_BOOKS_MAX)
  .openapi({ description: `Ids of existing books, no repeats, at most ${SHELF_BOOKS_MAX}, in shelf order` });

export const CreateShelfBody = z
  .object({ name, description: description.optional(), is_public: z.boolean().optional(), book_ids: bookIds.optional() })
  .strict()
  .openapi('CreateShelfRequest');

export const UpdateShelfBody = z
  .object({
    name: name.optional(),
    description: description.optional(),
    is_public: z.boolean().optional(),
    book_ids: bookIds.optional().openapi({ description: 'The full ordered list; this is how a shelf is reordered' }),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one of name, description, is_public, book_ids')
  .openapi('UpdateShelfRequest');
