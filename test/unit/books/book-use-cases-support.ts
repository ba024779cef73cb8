import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsBlobStore } from '../../../src/adapters/files/fs-blob-store.js';
import { FsUploadStaging } from '../../../src/adapters/files/fs-upload-staging.js';
import { createMemoryStore, type MemoryStore } from '../../../src/adapters/memory/memory-store.js';
import type { IdGenerator } from '../../../src/application/ports.js';
import type { UploadSource } from '../../../src/application/use-cases/upload-book.js';
import { actorFor, type Actor } from '../../../src/domain/actor.js';
import type { MetadataPatch } from '../../../src/domain/book-metadata.js';
import type { RoleName } from '../../../src/domain/permissions.js';
import { FakeClock } from '../../support/test-app.js';

/** Real in-memory repositories and real file adapters over a fresh temp directory. */
export interface BookWorld {
  readonly root: string;
  readonly store: MemoryStore;
  readonly staging: FsUploadStaging;
  readonly blobs: FsBlobStore;
  readonly clock: FakeClock;
  readonly ids: IdGenerator;
  files(): Promise<{ books: string[]; tmp: string[] }>;
  cleanup(): Promise<void>;
}

const list = (dir: string) => readdir(dir).then((names) => names.sort(), () => [] as string[]);

export async function aBookWorld(): Promise<BookWorld> {
  const root = await mkdtemp(join(tmpdir(), 'stacks-books-unit-'));
  const store = createMemoryStore();
  let n = 0;
  return {
    root,
    store,
    staging: new FsUploadStaging(root),
    blobs: new FsBlobStore(root),
    clock: new FakeClock(),
    ids: { next: () => `book-${++n}` },
    files: async () => ({ books: await list(join(root, 'books')), tmp: await list(join(root, 'tmp')) }),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

export const anActor = (role: RoleName, id = `${role}-1`): Actor => actorFor({ id, username: id, roles: [role] });

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
