import type { Book } from '../../../domain/book.js';
import type { Shelf } from '../../../domain/shelf.js';

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
  };
}

/** A book on a shelf, in API.md's Book shape. */
export function presentShelfBook(book: Book) {
  return {
    id: book.id,
    title: book.title,
    authors: [...book.authors],
    description: book.description,
    publisher: book.publisher,
    language: book.language,
    published: book.published,
    isbn: book.isbn,
    tags: [...book.tags],
    series: book.series,
    series_index: book.seriesIndex,
    format: book.format,
    file_name: book.fileName,
    file_size: book.fileSize,
    sha256: book.sha256,
    has_cover: book.coverMediaType !== null,
    cover_url: book.coverMediaType !== null ? `/api/books/${book.id}/cover` : null,
    download_url: `/api/books/${book.id}/file`,
    uploaded_by: { id: book.owner.id, username: book.owner.username },
    created_at: book.createdAt.toISOString(),
    updated_at: book.updatedAt.toISOString(),
  };
}
