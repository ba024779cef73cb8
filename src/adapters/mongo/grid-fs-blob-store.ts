import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GridFSBucket, ObjectId } from 'mongodb';
import type { Collection, Db, Filter, GridFSFile } from 'mongodb';
import type { BlobStore, ByteRange, StagedFile } from '../../application/ports.js';
import { assertReadableSpans } from '../../domain/byte-range.js';
import { rerunOnce } from './mongo-errors.js';
import { QUERY_MAX_TIME_MS } from './mongo-transactions.js';

const KEY_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
/** Documents per batch of a housekeeping cursor or range. */
const SWEEP_BATCH = 1000;

function assertKey(key: string): void {
  if (typeof key !== 'string' || !KEY_PATTERN.test(key) || key.startsWith('.')) {
    throw new RangeError(`invalid blob key ${JSON.stringify(String(key).slice(0, 140))}`);
  }
}

/**
 * Book files and covers in GridFS (bucket `fs`), the key as file name. An upload streams chunk by
 * chunk; its `fs.files` document is written only once every chunk is in, so a reader sees the old
 * file or the whole new one. Files older than the new one under the same name are removed after it
 * is complete (a newer one, another upload finishing first, is left alone). A file is deleted by its
 * `fs.files` document (one retryable delete), then its chunks (a delete by filter, run again once after
 * a failover; chunks a crash leaves are the orphan sweep's). Every read carries maxTimeMS.
 */
export class GridFsBlobStore implements BlobStore {
  private readonly bucket: GridFSBucket;
  private readonly files: string;
  private readonly fileDocuments: Collection<GridFSFile>;
  private readonly chunks: Collection<{ files_id: ObjectId; n: number }>;

  constructor(private readonly db: Db, options: { bucketName?: string } = {}) {
    const bucketName = options.bucketName ?? 'fs';
    this.bucket = new GridFSBucket(db, { bucketName });
    this.files = `${bucketName}.files`;
    this.fileDocuments = db.collection<GridFSFile>(this.files);
    this.chunks = db.collection(`${bucketName}.chunks`);
  }

  async putStaged(key: string, file: StagedFile): Promise<void> {
    assertKey(key);
    await this.upload(key, createReadStream(file.handle));
    await rm(file.handle, { force: true });
  }

  async putBytes(key: string, data: Uint8Array): Promise<void> {
    assertKey(key);
    await this.upload(key, Readable.from([Buffer.from(data)]));
  }

  async read(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | null> {
    assertKey(key);
    if (range && !(Number.isSafeInteger(range.start) && Number.isSafeInteger(range.end) && range.start >= 0 && range.end >= range.start)) {
      throw new RangeError('invalid byte range');
    }
    const file = await this.latest(key);
    if (!file) return null;
    if (!range) return this.bucket.openDownloadStream(file._id);
    return this.bucket.openDownloadStream(file._id, { start: range.start, end: Math.min(range.end + 1, file.length) });
  }

  async readSpans(key: string, ranges: readonly ByteRange[]): Promise<Uint8Array[] | null> {
    assertKey(key);
    assertReadableSpans(ranges);
    const file = await this.latest(key);
    if (!file) return null;
    const spans: Uint8Array[] = [];
    for (const { start, end } of ranges) {
      if (start >= file.length) {
        spans.push(new Uint8Array(0));
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of this.bucket.openDownloadStream(file._id, { start, end: Math.min(end + 1, file.length) })) chunks.push(chunk as Buffer);
      spans.push(Buffer.concat(chunks));
    }
    return spans;
  }

  async size(key: string): Promise<number | null> {
    assertKey(key);
    return (await this.latest(key))?.length ?? null;
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
    await this.deleteFiles({ filename: key });
  }

  /**
   * Keys whose every file was uploaded before olderThan: a key with a newer upload is still being written.
   * One cursor over `fs.files` in (filename, uploadDate) order, the index `filename_1_uploadDate_1`,
   * fetched a batch at a time: never a reply or a set that grows with the library.
   */
  async *keys(olderThan: Date): AsyncIterable<string> {
    const files = this.db.collection<GridFSFile>(this.files);
    const cursor = files
      .find({}, { projection: { _id: 0, filename: 1, uploadDate: 1 }, batchSize: SWEEP_BATCH })
      .sort({ filename: 1, uploadDate: 1 });
    let name: string | null = null;
    let newest = 0;
    const ready = () => name !== null && KEY_PATTERN.test(name) && newest < olderThan.getTime();
    for await (const file of cursor) {
      if (file.filename !== name) {
        if (ready()) yield name as string;
        name = typeof file.filename === 'string' ? file.filename : null;
        newest = 0;
      }
      newest = Math.max(newest, file.uploadDate.getTime());
    }
    if (ready()) yield name as string;
  }

  /**
   * Removes chunks whose file document is missing (an upload cut short by a crash). Chunks younger
   * than graceMs are left alone: they may belong to an upload another instance is still writing.
   * Walks `fs.chunks` by ranges of its (files_id, n) index, SWEEP_BATCH chunks a time, and looks each
   * range's file ids up in one bounded `$in`: no command or set grows with the library.
   */
  async removeOrphanChunks(graceMs = 60 * 60 * 1000, now: Date = new Date()): Promise<number> {
    const { chunks } = this;
    const cutoff = now.getTime() - graceMs;
    let after: ObjectId | null = null;
    let removed = 0;
    for (;;) {
      const range = await chunks
        .find(after === null ? {} : { files_id: { $gt: after } }, { projection: { _id: 0, files_id: 1 } })
        .sort({ files_id: 1, n: 1 })
        .limit(SWEEP_BATCH)
        .toArray();
      if (range.length === 0) return removed;
      const ids = [...new Map(range.map((c) => [String(c.files_id), c.files_id])).values()];
      after = ids[ids.length - 1] as ObjectId;
      const known = new Set((await this.bucket.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map((f) => String(f._id)));
      const orphans = ids.filter((id) => !known.has(String(id)) && (!(id instanceof ObjectId) || id.getTimestamp().getTime() <= cutoff));
      if (orphans.length > 0) removed += (await rerunOnce(() => chunks.deleteMany({ files_id: { $in: orphans } }))).deletedCount;
    }
  }

  /** Streams into GridFS; a failed upload is aborted, which removes the chunks it wrote. */
  private async upload(key: string, source: Readable): Promise<void> {
    const upload = this.bucket.openUploadStream(key);
    try {
      await pipeline(source, upload);
    } catch (error) {
      await upload.abort().catch(() => undefined);
      throw error;
    }
    const mine = upload.gridFSFile;
    if (!mine) return;
    // Older in the order `latest` reads (upload date, then id): a file another upload completed after this one stays.
    await this.deleteFiles({ filename: key, $or: [{ uploadDate: { $lt: mine.uploadDate } }, { uploadDate: mine.uploadDate, _id: { $lt: mine._id } }] });
  }

  private async latest(key: string): Promise<GridFSFile | null> {
    // index: filename_1_uploadDate_1
    const [file] = await this.bucket.find({ filename: key }, { maxTimeMS: QUERY_MAX_TIME_MS }).sort({ uploadDate: -1, _id: -1 }).limit(1).toArray();
    return file ?? null;
  }

  /** Deletes the matching files: each `fs.files` document (retryable), then its chunks (run again once after a failover). */
  private async deleteFiles(filter: Filter<GridFSFile>): Promise<void> {
    const files = await this.fileDocuments.find(filter, { projection: { _id: 1 }, maxTimeMS: QUERY_MAX_TIME_MS }).toArray();
    for (const { _id: id } of files) {
      await this.fileDocuments.deleteOne({ _id: id });
      await rerunOnce(() => this.chunks.deleteMany({ files_id: id }));
    }
  }
}
