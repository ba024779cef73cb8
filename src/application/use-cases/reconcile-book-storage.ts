import { bookIdOfBlobKey } from '../../domain/book-file-name.js';
import type { BlobStore, BookRepository, UploadStaging } from '../ports.js';

export interface ReconcileReport {
  /** Temp files of uploads that never finished. */
  readonly tempFilesRemoved: number;
  /** Book files and covers whose book has no record. */
  readonly orphanBlobsRemoved: number;
  readonly blobsKept: number;
}

/** Start-up sweep after a crash: removes temp files and blobs without a book record. */
export class ReconcileBookStorage {
  constructor(
    private readonly books: BookRepository,
    private readonly staging: UploadStaging,
    private readonly blobs: BlobStore,
  ) {}

  /** Runs before the service accepts uploads, so no upload is in flight. */
  async execute(): Promise<ReconcileReport> {
    const tempFilesRemoved = await this.staging.clear();
    const orphans: string[] = [];
    let blobsKept = 0;
    for await (const key of this.blobs.keys()) {
      const id = bookIdOfBlobKey(key);
      if (id !== null && !(await this.books.existingIds([id])).has(id)) orphans.push(key);
      else blobsKept += 1;
    }
    for (const key of orphans) await this.blobs.delete(key);
    return { tempFilesRemoved, orphanBlobsRemoved: orphans.length, blobsKept };
  }
}
