import { bookCoverKey } from '../../domain/book.js';
import { coverVariant, coverVariantKey } from '../../domain/derived-blobs.js';
import { coverNotFound } from '../../domain/error-catalogue.js';
import type { BlobStore, BookRepository, CoverResizer, ShelfRepository } from '../ports.js';
import type { KoboSession } from './authenticate-kobo-device.js';
import { findKoboBook } from './kobo-sync-scope.js';

/** The largest stored cover read for resizing. */
const MAX_COVER_BYTES = 10 * 1024 * 1024;

export interface KoboCoverRequest {
  readonly width: number;
  readonly height: number;
  readonly quality: number;
  readonly greyscale: boolean;
}

/**
 * A book's cover as a JPEG no smaller than the Kobo asks (up to 2048 px), made once per size step,
 * quality step and greyness (domain/derived-blobs.ts) and kept beside the cover. Only of a book the
 * device may open (findKoboBook): a device limited to shelves gets 404 for any other.
 */
export class GetKoboCover {
  private readonly making = new Map<string, Promise<Uint8Array>>();

  constructor(
    private readonly books: BookRepository,
    private readonly shelves: ShelfRepository,
    private readonly blobs: BlobStore,
    private readonly resizer: CoverResizer,
  ) {}

  async execute(session: Pick<KoboSession, 'actor' | 'device'>, bookId: string, request: KoboCoverRequest): Promise<Uint8Array> {
    const book = await findKoboBook(this.books, this.shelves, session, bookId);
    if (!book.coverMediaType) throw coverNotFound(bookId);
    const variant = coverVariant(request.width, request.height, request.quality, request.greyscale);
    const key = coverVariantKey(book.id, variant);
    const stored = await this.blobs.read(key);
    if (stored) return collect(stored, MAX_COVER_BYTES);
    let running = this.making.get(key);
    if (!running) {
      running = (async () => {
        const original = await this.blobs.read(bookCoverKey(book.id));
        if (!original) throw coverNotFound(bookId);
        const jpeg = await this.resizer.resize(await collect(original, MAX_COVER_BYTES),
          { maxWidth: variant.side, maxHeight: variant.side, quality: variant.quality, greyscale: variant.greyscale });
        await this.blobs.putBytes(key, jpeg);
        return jpeg;
      })().finally(() => this.making.delete(key));
      this.making.set(key, running);
    }
    return running;
  }
}

async function collect(body: AsyncIterable<Uint8Array>, max: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > max) throw coverNotFound('(oversized)');
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
