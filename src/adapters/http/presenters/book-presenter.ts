import type { Book } from '../../../domain/book.js';
import type { BookSchema } from '../schemas/books.js';
import type { z } from '../zod.js';

/** The Book of API.md: every field present (null or [] when absent), nothing internal. */
export function presentBook(book: Book) {
  const path = `/api/books/${encodeURIComponent(book.id)}`;
  const hasCover = book.coverMediaType !== null;
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
    has_cover: hasCover,
    cover_url: hasCover ? `${path}/cover` : null,
    download_url: `${path}/file`,
    uploaded_by: { id: book.owner.id, username: book.owner.username },
    created_at: book.createdAt.toISOString(),
    updated_at: book.updatedAt.toISOString(),
  } satisfies z.infer<typeof BookSchema>;
}
