import type { Shelf } from '../../../domain/shelf.js';
import type { ShelfSchema } from '../schemas/shelves.js';
import type { z } from '../zod.js';

/** The public shelf: whitelisted, snake_case. */
export function presentShelf(shelf: Shelf) {
  return {
    id: shelf.id,
    name: shelf.name,
    description: shelf.description,
    is_public: shelf.isPublic,
    owner: { id: shelf.owner.id, username: shelf.owner.username },
    book_ids: [...shelf.bookIds],
    book_count: shelf.bookCount,
    created_at: shelf.createdAt.toISOString(),
    updated_at: shelf.updatedAt.toISOString(),
  } satisfies z.infer<typeof ShelfSchema>;
}
