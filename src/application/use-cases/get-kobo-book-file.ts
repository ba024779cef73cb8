import { bookFileKey, MEDIA_TYPES, type Book } from '../../domain/book.js';
import { kepubKey } from '../../domain/derived-blobs.js';
import { bookFileNotFound } from '../../domain/error-catalogue.js';
import { UnprocessableError } from '../../domain/errors.js';
import type { ActivityLog, BlobStore, BookRepository, KepubConverter, ShelfRepository, StagedFile, UploadStaging } from '../ports.js';
import type { KoboSession } from './authenticate-kobo-device.js';
import { findKoboBook } from './kobo-sync-scope.js';

/** A file for a Kobo: the KEPUB made from an EPUB, or the book's own file. */
export interface KoboBookFile {
  readonly kind: 'kepub' | 'epub' | 'pdf';
  readonly mediaType: string;
  /** Display name for the download; `.kepub.epub` for a KEPUB. */
  readonly fileName: string;
  readonly size: number;
  readonly etag: string;
  open(): Promise<AsyncIterable<Uint8Array>>;
}

/** How many refused conversions one process remembers (the oldest forgotten first). */
const REMEMBERED_REFUSALS = 10_000;

/**
 * What a Kobo downloads: a PDF as it is; an EPUB converted to KEPUB once per converter version and kept
 * beside the book (never replacing it); the EPUB itself when the conversion fails. Concurrent requests
 * for the same KEPUB share one conversion. A file the converter refused (malformed, or past its time
 * budget) is not tried again by this process: each download of a hostile book would otherwise hold the
 * converter for its whole budget again.
 */
export class GetKoboBookFile {
  private readonly converting = new Map<string, Promise<boolean>>();
  private readonly refused = new Set<string>();

  constructor(
    private readonly books: BookRepository,
    private readonly shelves: ShelfRepository,
    private readonly blobs: BlobStore,
    private readonly staging: UploadStaging,
    private readonly converter: KepubConverter,
    private readonly log: ActivityLog,
  ) {}

  /** 404 for a book the device may not open (findKoboBook). */
  async execute(session: Pick<KoboSession, 'actor' | 'device'>, bookId: string): Promise<KoboBookFile> {
    const book = await findKoboBook(this.books, this.shelves, session, bookId);
    if (book.format === 'epub') {
      const key = kepubKey(book.id, book.sha256, this.converter.version);
      if (await this.kepubReady(book, key)) {
        const size = await this.blobs.size(key);
        if (size !== null) return this.file('kepub', book, key, size, `"${book.sha256}-kepub${this.converter.version}"`);
      }
    }
    return this.file(book.format === 'pdf' ? 'pdf' : 'epub', book, bookFileKey(book.id), book.fileSize, `"${book.sha256}"`);
  }

  /** Whether the KEPUB is stored, converting it first when it is not (false when the conversion failed). */
  private async kepubReady(book: Book, key: string): Promise<boolean> {
    if ((await this.blobs.size(key)) !== null) return true;
    if (this.refused.has(key)) return false;
    let running = this.converting.get(key);
    if (!running) {
      running = this.convert(book, key).finally(() => this.converting.delete(key));
      this.converting.set(key, running);
    }
    return running;
  }

  private async convert(book: Book, key: string): Promise<boolean> {
    const source = await this.blobs.read(bookFileKey(book.id));
    if (!source) throw bookFileNotFound(book.id);
    let original: StagedFile | null = null;
    let kepub: StagedFile | null = null;
    try {
      original = await this.staging.stage(source, book.fileSize);
      kepub = await this.converter.convert(original);
      await this.blobs.putStaged(key, kepub);
      kepub = null;
      return true;
    } catch (error) {
      if (error instanceof UnprocessableError) this.remember(key);
      this.log.warn({ book_id: book.id, code: (error as { code?: unknown }).code ?? null }, 'KEPUB conversion failed: the EPUB is served as it is');
      return false;
    } finally {
      for (const staged of [original, kepub]) if (staged) await this.staging.discard(staged).catch(() => undefined);
    }
  }

  private remember(key: string): void {
    if (this.refused.size >= REMEMBERED_REFUSALS) this.refused.delete(this.refused.values().next().value!);
    this.refused.add(key);
  }

  private file(kind: KoboBookFile['kind'], book: Book, key: string, size: number, etag: string): KoboBookFile {
    const stem = book.fileName.replace(/\.[A-Za-z0-9]{1,5}$/, '');
    return {
      kind, size, etag,
      mediaType: kind === 'pdf' ? MEDIA_TYPES.pdf : MEDIA_TYPES.epub,
      fileName: kind === 'kepub' ? `${stem}.kepub.epub` : book.fileName,
      open: async () => {
        const body = await this.blobs.read(key);
        if (!body) throw bookFileNotFound(book.id);
        return body;
      },
    };
  }
}
