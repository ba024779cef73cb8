import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, extname, join, relative } from 'node:path';
import { SingleBar } from 'cli-progress';
import type { UploadBook } from '../../application/use-cases/upload-book.js';
import type { Actor } from '../../domain/actor.js';
import { duplicateBook, hasCodeOf } from '../../domain/error-catalogue.js';
import { ConflictError, DomainError } from '../../domain/errors.js';
import { printable } from '../../domain/text.js';
import { say, UsageError, type CliIo } from './cli-io.js';

/** File name extensions tried as ebooks; the content still decides the format. */
export const EBOOK_EXTENSIONS = new Set(['.epub', '.pdf', '.mobi', '.azw', '.azw3', '.cbz', '.fb2', '.txt']);

export interface ImportSummary {
  readonly imported: number;
  readonly duplicates: number;
  readonly failed: number;
  /** Files left alone because their extension is not an ebook's. */
  readonly ignored: number;
}

type Outcome = { kind: 'imported'; title: string } | { kind: 'duplicate'; bookId: string } | { kind: 'failed'; reason: string };

/** Every regular file under folder, depth first in name order; hidden entries and symlinks are skipped. */
async function* filesUnder(folder: string): AsyncGenerator<string> {
  const entries = (await readdir(folder, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* filesUnder(path);
    else if (entry.isFile()) yield path;
  }
}

async function importOne(upload: UploadBook, owner: Actor, path: string): Promise<Outcome> {
  try {
    const book = await upload.execute(owner, {
      content: createReadStream(path),
      details: async () => ({ fileName: basename(path), overrides: {} }),
    });
    return { kind: 'imported', title: book.title };
  } catch (error) {
    if (error instanceof ConflictError && hasCodeOf(error, () => duplicateBook(null))) return { kind: 'duplicate', bookId: String(error.extra['book_id']) };
    if (error instanceof DomainError) return { kind: 'failed', reason: `${error.message} (${error.code})` };
    return { kind: 'failed', reason: `cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

/** Uploads every ebook file under folder as owner, one at a time, with a progress bar on a terminal. */
export async function importFolder(upload: UploadBook, owner: Actor, folder: string, io: CliIo): Promise<ImportSummary> {
  const info = await stat(folder).catch(() => null);
  if (!info?.isDirectory()) throw new UsageError(`'${folder}' is not a folder`);
  const all: string[] = [];
  for await (const path of filesUnder(folder)) all.push(path);
  const files = all.filter((path) => EBOOK_EXTENSIONS.has(extname(path).toLowerCase()));
  const counts = { imported: 0, duplicate: 0, failed: 0 };
  const failures: string[] = [];
  const bar = io.stderr.isTTY ? new SingleBar({ stream: io.stderr, format: 'importing [{bar}] {value}/{total} {file}', hideCursor: true }) : null;
  bar?.start(files.length, 0, { file: '' });
  for (const [index, path] of files.entries()) {
    const name = printable(relative(folder, path));
    const outcome = await importOne(upload, owner, path);
    counts[outcome.kind] += 1;
    if (outcome.kind === 'failed') failures.push(`failed     ${name}: ${printable(outcome.reason)}`);
    if (bar) bar.update(index + 1, { file: name });
    else say(io.stdout, `[${index + 1}/${files.length}] ${lineFor(outcome, name)}`);
  }
  bar?.stop();
  if (bar) failures.forEach((line) => say(io.stderr, line));
  const summary = { imported: counts.imported, duplicates: counts.duplicate, failed: counts.failed, ignored: all.length - files.length };
  say(io.stdout, `${summary.imported} imported, ${summary.duplicates} duplicates, ${summary.failed} failed`);
  if (summary.ignored > 0) say(io.stdout, `${summary.ignored} other file(s) ignored (not an ebook extension)`);
  return summary;
}

function lineFor(outcome: Outcome, name: string): string {
  switch (outcome.kind) {
    case 'imported':
      return `imported   ${name}: ${printable(outcome.title)}`;
    case 'duplicate':
      return `duplicate  ${name}: already in the library as ${printable(outcome.bookId)}`;
    case 'failed':
      return `failed     ${name}: ${printable(outcome.reason)}`;
  }
}
