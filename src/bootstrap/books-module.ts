import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import { FsBlobStore } from '../adapters/files/fs-blob-store.js';
import { FsUploadStaging } from '../adapters/files/fs-upload-staging.js';
import { bookRoutes } from '../adapters/http/books.routes.js';
import type { AnyRoute } from '../adapters/http/route.js';
import { SafeMetadataReader } from '../adapters/metadata/safe-metadata-reader.js';
import type { BlobStore, BookRepository, Clock, IdGenerator, MetadataReader, ShelfRepository, UploadStaging } from '../application/ports.js';
import { DeleteBook } from '../application/use-cases/delete-book.js';
import { GetBook } from '../application/use-cases/get-book.js';
import { GetBookCover } from '../application/use-cases/get-book-cover.js';
import { GetBookFile } from '../application/use-cases/get-book-file.js';
import { ListBooks } from '../application/use-cases/list-books.js';
import { ReconcileBookStorage } from '../application/use-cases/reconcile-book-storage.js';
import { UpdateBook } from '../application/use-cases/update-book.js';
import { UploadBook } from '../application/use-cases/upload-book.js';
import type { Config } from './config.js';
import type { Stores } from './stores.js';
import { TOKENS as T } from './tokens.js';

/** DI tokens of the book adapters and use cases. */
export const BOOK_TOKENS = {
  /** The directory holding `books/` (blobs) and `tmp/` (staged uploads). */
  StorageRoot: Symbol('BookStorageRoot'),
  UploadStaging: Symbol('UploadStaging'),
  BlobStore: Symbol('BlobStore'),
  MetadataReader: Symbol('MetadataReader'),
  UploadBook: Symbol('UploadBook'),
  ListBooks: Symbol('ListBooks'),
  GetBook: Symbol('GetBook'),
  UpdateBook: Symbol('UpdateBook'),
  DeleteBook: Symbol('DeleteBook'),
  GetBookFile: Symbol('GetBookFile'),
  GetBookCover: Symbol('GetBookCover'),
  ReconcileBookStorage: Symbol('ReconcileBookStorage'),
} as const;
const B = BOOK_TOKENS;

export interface BooksModule {
  /** Stops the metadata workers; removes the temporary storage of a `memory:` store. */
  dispose(): Promise<void>;
}

/**
 * Registers book storage (files under DATA_DIR, or a fresh temp directory for `memory:`), the
 * metadata reader and the book use cases. Needs the store's repositories registered first.
 */
export async function registerBooks(di: DependencyContainer, config: Config): Promise<BooksModule> {
  const ephemeral = config.store.kind === 'memory';
  const root = ephemeral ? await mkdtemp(join(tmpdir(), 'stacks-books-')) : config.dataDir;
  const reader = new SafeMetadataReader();
  di.registerInstance(B.StorageRoot, root);
  di.registerInstance<UploadStaging>(B.UploadStaging, new FsUploadStaging(root));
  di.registerInstance<BlobStore>(B.BlobStore, di.resolve<Stores>(T.Stores).blobs ?? new FsBlobStore(root));
  di.registerInstance<MetadataReader>(B.MetadataReader, reader);

  const books = (c: DependencyContainer) => c.resolve<BookRepository>(T.BookRepository);
  const shelves = (c: DependencyContainer) => c.resolve<ShelfRepository>(T.ShelfRepository);
  const staging = (c: DependencyContainer) => c.resolve<UploadStaging>(B.UploadStaging);
  const blobs = (c: DependencyContainer) => c.resolve<BlobStore>(B.BlobStore);
  const clock = (c: DependencyContainer) => c.resolve<Clock>(T.Clock);
  const ids = (c: DependencyContainer) => c.resolve<IdGenerator>(T.Ids);

  singleton(di, B.UploadBook, (c) =>
    new UploadBook(books(c), staging(c), blobs(c), c.resolve<MetadataReader>(B.MetadataReader), clock(c), ids(c), config.maxUploadBytes));
  singleton(di, B.ListBooks, (c) => new ListBooks(books(c)));
  singleton(di, B.GetBook, (c) => new GetBook(books(c)));
  singleton(di, B.UpdateBook, (c) => new UpdateBook(books(c), clock(c)));
  singleton(di, B.DeleteBook, (c) => new DeleteBook(books(c), shelves(c), blobs(c), clock(c)));
  singleton(di, B.GetBookFile, (c) => new GetBookFile(books(c), blobs(c)));
  singleton(di, B.GetBookCover, (c) => new GetBookCover(books(c), blobs(c)));
  singleton(di, B.ReconcileBookStorage, (c) => new ReconcileBookStorage(books(c), staging(c), blobs(c)));

  return {
    dispose: async () => {
      await reader.close();
      if (ephemeral) await rm(root, { recursive: true, force: true });
    },
  };
}

/** The /api/books routes, from the registered use cases. */
export function bookRoutesFrom(di: DependencyContainer): AnyRoute[] {
  return bookRoutes({
    upload: di.resolve(B.UploadBook),
    list: di.resolve(B.ListBooks),
    get: di.resolve(B.GetBook),
    update: di.resolve(B.UpdateBook),
    remove: di.resolve(B.DeleteBook),
    file: di.resolve(B.GetBookFile),
    cover: di.resolve(B.GetBookCover),
    maxUploadBytes: di.resolve<Config>(T.Config).maxUploadBytes,
  });
}

/** Start-up: sweeps temp files and blobs left without a record by a crash. */
export async function prepareBooks(di: DependencyContainer, logger: Logger): Promise<void> {
  const report = await di.resolve<ReconcileBookStorage>(B.ReconcileBookStorage).execute();
  const orphanChunksRemoved = (await di.resolve<Stores>(T.Stores).blobs?.removeOrphanChunks()) ?? 0;
  logger.info({ ...report, orphanChunksRemoved }, 'book storage reconciled');
}

function singleton<V>(di: DependencyContainer, token: symbol, factory: (c: DependencyContainer) => V): void {
  di.register<V>(token, { useFactory: instanceCachingFactory<V>(factory) });
}
