import type { MessagePort } from 'node:worker_threads';
import type { ExtractedBook } from '../../application/ports.js';
import { corruptBookFile } from '../../domain/error-catalogue.js';
import { DomainError, UnprocessableError, UnsupportedTypeError } from '../../domain/errors.js';
import { readCbzArchive } from './cbz-reader.js';
import { readSlice, sniffFormat } from './detect-format.js';
import { isEpubContainer, readEpubArchive } from './epub-reader.js';
import { readFb2 } from './fb2-reader.js';
import type { MetadataLimits } from './limits.js';
import { readMobi } from './mobi-reader.js';
import { loadPdfJs, readPdf } from './pdf-reader.js';
import { readText } from './text-reader.js';
import { ZipArchive } from './zip-archive.js';

export interface MetadataTask {
  readonly path: string;
  readonly size: number;
  readonly limits: MetadataLimits;
  /** Told as soon as a worker picks the task up, so the time budget excludes thread start-up. */
  readonly started?: MessagePort;
}

/** Errors cross the thread boundary as data; the main thread turns them back into domain errors. */
export type MetadataTaskResult =
  | { readonly ok: true; readonly book: ExtractedBook }
  | { readonly ok: false; readonly kind: 'unsupported' | 'unprocessable'; readonly code: string; readonly message: string };

/** Picks the reader by content and runs it; this is what the worker thread executes. */
export async function readByContent(path: string, size: number, limits: MetadataLimits): Promise<ExtractedBook> {
  const format = await sniffFormat(path, size);
  switch (format) {
    case 'zip':
      return readZipBook(path, limits);
    case 'pdf':
      return readPdf(path, size, limits);
    case 'mobi':
      return readMobi(path, size, limits);
    case 'fb2':
      return readFb2(path, size, limits);
    default:
      return readText(path, size, format);
  }
}

/** A ZIP is an EPUB when it holds META-INF/container.xml (its `mimetype` entry aside), else maybe a comic. */
async function readZipBook(path: string, limits: MetadataLimits): Promise<ExtractedBook> {
  const zip = await ZipArchive.open(path, limits);
  try {
    return isEpubContainer(zip) ? await readEpubArchive(zip, limits) : await readCbzArchive(zip, limits);
  } finally {
    zip.close();
  }
}

export default async function runMetadataTask(task: MetadataTask): Promise<MetadataTaskResult> {
  // A PDF's reader is imported before the parse budget starts: loading pdf.js is not reading the file
  // (the start-up grace bounds it), and on a loaded machine it alone can take most of the budget.
  if (task.size >= 5 && (await readSlice(task.path, 0, 5).catch(() => Buffer.alloc(0))).toString('latin1') === '%PDF-') {
    await loadPdfJs().catch(() => undefined);
  }
  task.started?.postMessage('started');
  try {
    return { ok: true, book: await readByContent(task.path, task.size, task.limits) };
  } catch (error) {
    if (error instanceof UnsupportedTypeError) return { ok: false, kind: 'unsupported', code: error.code, message: error.message };
    if (error instanceof UnprocessableError) return { ok: false, kind: 'unprocessable', code: error.code, message: error.message };
    // Stack overflows, parser bugs and I/O errors on hostile input: the file cannot be used.
    const damaged = corruptBookFile('The file is damaged or could not be read safely.');
    return { ok: false, kind: 'unprocessable', code: error instanceof DomainError ? error.code : damaged.code, message: damaged.message };
  }
}
