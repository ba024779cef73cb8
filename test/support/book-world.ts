import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsBlobStore } from '../../src/adapters/files/fs-blob-store.js';
import { FsUploadStaging } from '../../src/adapters/files/fs-upload-staging.js';
import type { MetadataReader } from '../../src/application/ports.js';
import type { UploadSource } from '../../src/application/use-cases/upload-book.js';
import { bookCoverKey, bookFileKey, type Book } from '../../src/domain/book.js';
import type { MetadataPatch } from '../../src/domain/book-metadata.js';
import { anActor } from './actors.js';
import { aBook } from './builders.js';
import { aWorld, type World, type WorldOptions } from './use-case-world.js';

/** A use-case world whose files live in a fresh temp directory, through the real file adapters. */
export interface BookWorld extends World {
  readonly root: string;
  readonly staging: FsUploadStaging;
  readonly blobs: FsBlobStore;
  files(): Promise<{ books: string[]; tmp: string[] }>;
  cleanup(): Promise<void>;
}

const list = (dir: string) => readdir(dir).then((names) => names.sort(), () => [] as string[]);

const unreadable: MetadataReader = {
  read: () => Promise.reject(new Error('this book world reads no metadata: pass one to aBookWorld()')),
};

export async function aBookWorld(options: Omit<WorldOptions, 'files'> & { metadata?: MetadataReader } = {}): Promise<BookWorld> {
  const root = await mkdtemp(join(tmpdir(), 'stacks-books-unit-'));
  const staging = new FsUploadStaging(root);
  const blobs = new FsBlobStore(root);
  const world = aWorld({ idPrefix: 'book-', ...options, files: { staging, blobs, metadata: options.metadata ?? unreadable } });
  return Object.assign(world, {
    root,
    staging,
    blobs,
    files: async () => ({ books: await list(join(root, 'books')), tmp: await list(join(root, 'tmp')) }),
    cleanup: () => rm(root, { recursive: true, force: true }),
  });
}

/** An upload whose bytes come in small chunks, as from a socket. */
export function sourceOf(bytes: Buffer, fileName: string | null = 'book.bin', overrides: MetadataPatch = {}): UploadSource & { read: boolean } {
  const state = { read: false };
  async function* content() {
    state.read = true;
    for (let i = 0; i < bytes.length; i += 1024) yield bytes.subarray(i, i + 1024);
  }
  return {
    get read() {
      return state.read;
    },
    content: content(),
    details: async () => ({ fileName, overrides }),
  };
}

/** Stores a book record with its file and, unless cover is null, a PNG cover (record says so). */
export async function storeBookWithFiles(w: BookWorld, overrides: Partial<Book>, file: Buffer, cover: Buffer | null = Buffer.from('png')): Promise<Book> {
  const book = aBook({ fileSize: file.length, coverMediaType: cover ? 'image/png' : null, ...overrides });
  await w.store.books.create(book);
  await w.blobs.putBytes(bookFileKey(book.id), file);
  if (cover) await w.blobs.putBytes(bookCoverKey(book.id), cover);
  return book;
}

/** The owner of the books storeOwnedBook stores, as the actor it acts as. */
export const BOOK_OWNER = anActor('user', 'owner-1');

/** Stores book `id` of BOOK_OWNER, its file the 20 bytes `0123456789abcdefghij`, with a PNG cover unless `withCover` is false. */
export function storeOwnedBook(w: BookWorld, id: string, withCover = true): Promise<Book> {
  return storeBookWithFiles(w, { id, owner: { id: BOOK_OWNER.id, username: BOOK_OWNER.username } }, Buffer.from('0123456789abcdefghij'),
    withCover ? Buffer.from('png') : null);
}

/** Everything a body yields, as UTF-8 text. */
export async function textOf(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString();
}
