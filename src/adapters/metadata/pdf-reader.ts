import { open, type FileHandle } from 'node:fs/promises';
import type { ExtractedBook } from '../../application/ports.js';
import { corrupt, type MetadataLimits } from './limits.js';
import { pdfMetadata } from './pdf-metadata.js';
import { finishMetadata } from './sanitize.js';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let pdfjsModule: Promise<PdfJs> | null = null;
/** pdf.js, imported once per worker thread (a second or more on a loaded machine). */
export const loadPdfJs = () => (pdfjsModule ??= import('pdfjs-dist/legacy/build/pdf.mjs'));

const RANGE_CHUNK = 64 * 1024;

/**
 * Reads the Info dictionary and XMP metadata with pdf.js (UP-07): no eval, no font faces,
 * no network, stop at errors. Bytes are served on demand, so a large PDF is not loaded whole.
 * Runs inside the metadata worker, which enforces the time and memory budget.
 */
export async function readPdf(path: string, size: number, limits: MetadataLimits): Promise<ExtractedBook> {
  if (size > limits.maxPdfBytes) throw corrupt(`PDF larger than ${limits.maxPdfBytes} bytes.`);
  const file = await open(path, 'r');
  try {
    await checkDeclaredCounts(file, size, limits.maxPdfPages);
  } catch (error) {
    await file.close();
    throw error;
  }
  const pdfjs = await loadPdfJs();
  const transport = new pdfjs.PDFDataRangeTransport(size, new Uint8Array(0));
  transport.requestDataRange = (begin: number, end: number) => {
    readRange(file, begin, Math.min(end, size)).then(
      (chunk) => transport.onDataRange(begin, chunk),
      () => transport.abort(),
    );
  };
  const task = pdfjs.getDocument({
    range: transport,
    length: size,
    rangeChunkSize: RANGE_CHUNK,
    disableAutoFetch: true,
    disableStream: true,
    isEvalSupported: false,
    disableFontFace: true,
    stopAtErrors: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    isOffscreenCanvasSupported: false,
    enableXfa: false,
    verbosity: 0,
  });
  try {
    const doc = await task.promise.catch((error: unknown) => {
      throw corrupt(`Unreadable PDF: ${String((error as Error)?.message ?? error).slice(0, 200)}`);
    });
    if (doc.numPages > limits.maxPdfPages || doc.numPages < 1) throw corrupt(`PDF declares ${doc.numPages} pages.`);
    const { info, metadata } = await doc.getMetadata().catch(() => {
      throw corrupt('The PDF metadata cannot be read.');
    });
    const dict = (typeof info === 'object' && info !== null ? info : {}) as Record<string, unknown>;
    return {
      format: 'pdf',
      metadata: finishMetadata(pdfMetadata(dict, metadata)),
      cover: null,
    };
  } finally {
    await task.destroy().catch(() => undefined);
    await file.close();
  }
}

const SCAN_CHUNK = 1024 * 1024;

/**
 * pdf.js quietly corrects a page tree whose /Count disagrees with its /Kids; a file that
 * declares more pages than the cap in any plain-text /Count is hostile, so it is refused.
 */
async function checkDeclaredCounts(file: FileHandle, size: number, maxPages: number): Promise<void> {
  const overlap = 32;
  for (let position = 0; position < size; position += SCAN_CHUNK - overlap) {
    const chunk = Buffer.from(await readRange(file, position, Math.min(size, position + SCAN_CHUNK))).toString('latin1');
    for (const match of chunk.matchAll(/\/Count\s+\+?(\d{6,})/g)) {
      if (Number(match[1]) > maxPages) throw corrupt(`PDF declares ${match[1]} pages.`);
    }
    if (position + SCAN_CHUNK >= size) break;
  }
}

async function readRange(file: FileHandle, begin: number, end: number): Promise<Uint8Array> {
  const length = Math.max(0, end - begin);
  const buf = new Uint8Array(length);
  const { bytesRead } = await file.read(buf, 0, length, begin);
  return buf.subarray(0, bytesRead);
}
