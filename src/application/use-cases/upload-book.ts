import type { Actor } from '../../domain/actor.js';
import { bookCoverKey, bookFileKey, type Book } from '../../domain/book.js';
import { displayFileName } from '../../domain/book-file-name.js';
import { mergeMetadata, normalizeMetadataPatch, type MetadataPatch } from '../../domain/book-metadata.js';
import { duplicateBook, permissionDenied } from '../../domain/error-catalogue.js';
import { canUploadBook } from '../../domain/policies.js';
import type {
  BlobStore, BookDigestRepository, BookRepository, Clock, IdGenerator, MetadataReader, SecretGenerator, StagedFile, UploadStaging,
} from '../ports.js';
import type { Authority } from './authority.js';
import { koreaderDigestsOf } from './book-digests.js';

/** A client's upload: the file's bytes as they arrive, then its name and the override fields. */
export interface UploadSource {
  /** Fails when the request breaks a rule (too large, malformed, aborted). */
  readonly content: AsyncIterable<Uint8Array>;
  /** Settles once the whole request has been read. */
  details(): Promise<{ readonly fileName: string | null; readonly overrides: MetadataPatch }>;
}

/**
 * Stores an uploaded book so that a failure or a crash at any step leaves no visible half state. The
 * uploader's authority is confirmed as soon as the whole body is in, before any answer that tells what
 * the library holds (a duplicate), and again just before the book is recorded.
 */
export class UploadBook {
  constructor(
    private readonly books: BookRepository,
    private readonly staging: UploadStaging,
    private readonly blobs: BlobStore,
    private readonly metadata: MetadataReader,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly maxUploadBytes: number,
    private readonly digests: BookDigestRepository,
    private readonly secrets: SecretGenerator,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, source: UploadSource): Promise<Book> {
    if (!canUploadBook(actor)) throw permissionDenied();
    const staged = await this.staging.stage(source.content, this.maxUploadBytes);
    const written: string[] = [];
    try {
      const { fileName, overrides: raw } = await source.details();
      // The body may have taken minutes: an uploader who lost authority meanwhile learns nothing of the library.
      await this.confirmUploader(actor);
      const overrides = normalizeMetadataPatch(raw);
      const existing = await this.books.findBySha256(staged.sha256);
      if (existing) throw duplicateBook(existing.id);
      const extracted = await this.metadata.read(staged);
      const metadata = mergeMetadata(overrides, extracted.metadata, fileName);
      const id = this.ids.next();
      const now = this.clock.now();
      const book: Book = {
        ...metadata,
        id,
        format: extracted.format,
        fileName: displayFileName(fileName, extracted.format, metadata.title),
        fileSize: staged.size,
        sha256: staged.sha256,
        coverMediaType: extracted.cover?.mediaType ?? null,
        owner: { id: actor.id, username: actor.username },
        createdAt: now,
        updatedAt: now,
      };
      written.push(bookFileKey(id));
      await this.blobs.putStaged(bookFileKey(id), staged);
      if (extracted.cover) {
        written.push(bookCoverKey(id));
        await this.blobs.putBytes(bookCoverKey(id), extracted.cover.data);
      }
      // Parsing and storing the file take time too: the uploader must still be who may upload, now.
      await this.confirmUploader(actor);
      await this.books.create(book);
      await this.recordDigests(book);
      return book;
    } catch (error) {
      await this.cleanUp(staged, written);
      throw error;
    }
  }

  /** 401 when the uploader's credential stopped working, 403 when its permissions no longer allow uploading. */
  private async confirmUploader(actor: Actor): Promise<void> {
    const { actor: uploader } = await this.authority.confirm(actor);
    if (!canUploadBook(uploader)) throw permissionDenied();
  }

  /** Never throws, so the recorded book is kept: a book left without digests is BackfillBookDigests' to catch up. */
  private async recordDigests(book: Book): Promise<void> {
    const digests = await koreaderDigestsOf(this.blobs, this.secrets, book).catch(() => null);
    if (digests) await this.digests.put(book.id, digests).catch(() => undefined);
  }

  /** Best effort: whatever this leaves (after a second failure) the start-up reconciler removes. */
  private async cleanUp(staged: StagedFile, keys: readonly string[]): Promise<void> {
    await this.staging.discard(staged).catch(() => undefined);
    await Promise.all(keys.map((key) => this.blobs.delete(key).catch(() => undefined)));
  }
}
