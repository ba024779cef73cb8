import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import { hasCodeOf } from '../../domain/error-catalogue.js';
import { readSlice } from './detect-format.js';
import { corrupt, type MetadataLimits } from './limits.js';

const OPTIONS = { lazyEntries: true, strictFileNames: true, validateEntrySizes: true, decodeStrings: true, autoClose: false };
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const LOCAL_HEADER_SIZE = 30;
const NESTED_ARCHIVE = /\.(zip|epub|cbz|cbr|cb7|jar|rar|7z|gz|tgz|bz2|xz|zst|tar)$/i;
/** Small entries are bounded by their size cap; the ratio matters from here up. */
const RATIO_CHECK_FROM = 64 * 1024;

/**
 * A ZIP opened for reading a few small entries, never extracted to disk (UP-04, UP-05).
 * Entry count, declared sizes, compression ratios, names, symlinks, nested archives, duplicates
 * and overlapping entries are checked for every entry before anything is inflated; reads count
 * real bytes and stop at the cap (a lying declared size cannot get past it).
 */
export class ZipArchive {
  private readonly byName: Map<string, Entry>;

  private constructor(private readonly zip: ZipFile, readonly entries: readonly Entry[], private readonly path: string) {
    this.byName = new Map(entries.map((e) => [e.fileName, e]));
  }

  static async open(path: string, limits: MetadataLimits): Promise<ZipArchive> {
    const zip = await new Promise<ZipFile>((resolve, reject) =>
      yauzl.open(path, OPTIONS, (err, z) => (err ? reject(corrupt(`Unreadable archive: ${err.message}`)) : resolve(z))),
    );
    try {
      if (zip.entryCount > limits.maxZipEntries) throw corrupt(`Archive has more than ${limits.maxZipEntries} entries.`);
      const entries = await readAllEntries(zip, limits);
      checkLayout(entries);
      return new ZipArchive(zip, entries, path);
    } catch (error) {
      zip.close();
      throw error;
    }
  }

  /**
   * The archive comment as UTF-8 (ComicBookInfo keeps a comic's metadata there as JSON): yauzl decodes it
   * as CP437, one character per byte, so its length says how many bytes to read back from the end.
   */
  async comment(): Promise<string> {
    const length = typeof this.zip.comment === 'string' ? this.zip.comment.length : 0;
    if (length === 0 || length > 0xffff) return '';
    return (await readSlice(this.path, this.zip.fileSize - length, length)).toString('utf8');
  }

  get(name: string): Entry | undefined {
    return this.byName.get(name);
  }

  /** Inflates one entry into memory, refusing it when it may exceed maxBytes. */
  async read(entry: Entry, maxBytes: number): Promise<Buffer> {
    if (entry.isEncrypted()) throw corrupt(`Entry ${entry.fileName} is encrypted.`);
    if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) throw corrupt(`Entry ${entry.fileName} uses an unsupported compression method.`);
    if (entry.uncompressedSize > maxBytes) throw corrupt(`Entry ${entry.fileName} is larger than ${maxBytes} bytes.`);
    const stream = await new Promise<NodeJS.ReadableStream & { destroy(): void }>((resolve, reject) =>
      this.zip.openReadStream(entry, (err, s) => (err ? reject(corrupt(`Unreadable entry ${entry.fileName}: ${err.message}`)) : resolve(s))),
    );
    const chunks: Buffer[] = [];
    let total = 0;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > maxBytes) throw corrupt(`Entry ${entry.fileName} inflates past ${maxBytes} bytes.`);
        chunks.push(chunk);
      }
    } catch (error) {
      stream.destroy();
      throw hasCodeOf(error, () => corrupt(''))
        ? error
        : corrupt(`Entry ${entry.fileName} is damaged: ${(error as Error).message}`);
    }
    const data = Buffer.concat(chunks, total);
    if (data.length >= 4 && data.readUInt32LE(0) === 0x04034b50) throw corrupt(`Entry ${entry.fileName} is a nested archive.`);
    return data;
  }

  close(): void {
    this.zip.close();
  }
}

function readAllEntries(zip: ZipFile, limits: MetadataLimits): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    let declared = 0;
    const fail = (error: Error) => {
      zip.removeAllListeners('entry');
      zip.removeAllListeners('end');
      reject(error);
    };
    zip.on('error', (err: Error) => fail(corrupt(`Damaged archive: ${err.message}`)));
    zip.on('end', () => resolve(entries));
    zip.on('entry', (entry: Entry) => {
      const problem = entryProblem(entry);
      if (problem) return fail(corrupt(`Entry ${JSON.stringify(entry.fileName.slice(0, 200))}: ${problem}.`));
      const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
      if (entry.uncompressedSize >= RATIO_CHECK_FROM && ratio > limits.maxCompressionRatio) {
        return fail(corrupt(`Entry ${JSON.stringify(entry.fileName.slice(0, 200))} has a compression ratio above ${limits.maxCompressionRatio}.`));
      }
      declared += entry.uncompressedSize;
      if (declared > limits.maxZipTotalBytes) return fail(corrupt(`Archive declares more than ${limits.maxZipTotalBytes} bytes.`));
      if (entries.length >= limits.maxZipEntries) return fail(corrupt(`Archive has more than ${limits.maxZipEntries} entries.`));
      entries.push(entry);
      zip.readEntry();
    });
    zip.readEntry();
  });
}

function entryProblem(entry: Entry): string | null {
  const name = entry.fileName;
  const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
  if (mode === S_IFLNK) return 'symbolic links are not allowed';
  if (name.length === 0 || name.includes('\0')) return 'empty or NUL in name';
  if (name.includes('\\')) return 'backslash in name';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'absolute path';
  if (name.split('/').some((part) => part === '..')) return 'parent directory reference';
  if (NESTED_ARCHIVE.test(name)) return 'nested archives are not allowed';
  return null;
}

/** Rejects duplicate names and entries whose data would overlap (the "better zip bomb"). */
function checkLayout(entries: readonly Entry[]): void {
  const names = new Set<string>();
  for (const e of entries) {
    if (names.has(e.fileName)) throw corrupt(`Entry ${e.fileName} appears twice.`);
    names.add(e.fileName);
  }
  const sorted = [...entries].sort((a, b) => a.relativeOffsetOfLocalHeader - b.relativeOffsetOfLocalHeader);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const end = prev.relativeOffsetOfLocalHeader + LOCAL_HEADER_SIZE + prev.fileNameLength + prev.compressedSize;
    if (sorted[i]!.relativeOffsetOfLocalHeader < end) throw corrupt('Archive entries overlap.');
  }
}
