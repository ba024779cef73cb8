import { bookIdOfBlobKey } from '../../domain/book-file-name.js';
import type { BlobStore, BookRepository, Clock, UploadStaging } from '../ports.js';

/**
 * How old a temp file or a record-less blob must be before housekeeping removes it: twice the HTTP
 * request timeout (30 minutes), so an upload or import still in flight, here or in another process
 * sharing the storage, is never swept from under the writer about to record it.
 */
export const STORAGE_SWEEP_GRACE_MS = 60 * 60 * 1000;
/** Blob keys whose records are looked up in one query. */
const BATCH = 500;

export interface ReconcileReport {
  /** Book files and covers whose book has no record. */
  readonly orphanBlobsRemoved: number;
  readonly blobsKept: number;
}

/**
 * The sweeps after a crash: old temp files of this instance's uploads (every instance sweeps its own),
 * and old blobs without a book record (one instance at a time, on a shared store).
 */
export class ReconcileBookStorage {
  constructor(
    private readonly books: BookRepository,
    private readonly staging: UploadStaging,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
  ) {}

  /** Removes this instance's temp files of uploads that never finished, older than STORAGE_SWEEP_GRACE_MS. */
  async clearTempFiles(): Promise<{ tempFilesRemoved: number }> {
    return { tempFilesRemoved: await this.staging.clear(this.olderThan()) };
  }

  /** Removes book files and covers without a record. Safe while uploads run: only what is older than STORAGE_SWEEP_GRACE_MS is considered. */
  async execute(): Promise<ReconcileReport> {
    const olderThan = this.olderThan();
    let batch: string[] = [];
    let orphanBlobsRemoved = 0;
    let blobsKept = 0;
    const sweep = async () => {
      const orphans = await this.orphansOf(batch);
      for (const key of orphans) await this.blobs.delete(key);
      orphanBlobsRemoved += orphans.length;
      blobsKept += batch.length - orphans.length;
      batch = [];
    };
    for await (const key of this.blobs.keys(olderThan)) {
      batch.push(key);
      if (batch.length === BATCH) await sweep();
    }
    await sweep();
    return { orphanBlobsRemoved, blobsKept };
  }

  private olderThan(): Date {
    return new Date(this.clock.now().getTime() - STORAGE_SWEEP_GRACE_MS);
  }

  /** The keys of book files and covers whose book has no record; other keys are never touched. */
  private async orphansOf(keys: readonly string[]): Promise<string[]> {
    const ids = keys.map((key) => bookIdOfBlobKey(key));
    const existing = await this.books.existingIds([...new Set(ids.filter((id): id is string => id !== null))]);
    return keys.filter((_, i) => ids[i] !== null && !existing.has(ids[i] as string));
  }
}
