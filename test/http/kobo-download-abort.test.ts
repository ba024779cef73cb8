import { once } from 'node:events';
import { mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsBlobStore } from '../../src/adapters/files/fs-blob-store.js';
import { createApp } from '../../src/adapters/http/app.js';
import type { BookRepository, ByteRange } from '../../src/application/ports.js';
import { loadConfig } from '../../src/bootstrap/config.js';
import { buildContainer, type StacksContainer } from '../../src/bootstrap/container.js';
import { httpDepsFrom } from '../../src/bootstrap/http.js';
import { prepare } from '../../src/bootstrap/server.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { bookFileKey } from '../../src/domain/book.js';
import { aBook } from '../support/builders.js';
import { addKobo, KOBO_HEADERS, type KoboDeviceUrl } from '../support/kobo.js';
import { bearer, registerUser, TEST_JWT_SECRET, type Session } from '../support/test-app.js';
import { until } from '../support/until.js';

/** Far more than the loopback socket buffers hold, so an unread download is still mid-body when its client goes. */
const SIZE = 32 * 1024 * 1024;
const ABORTED = 5;

/**
 * The real FS blob store, keeping every read stream it hands out: a stream the server lets go of is then
 * never closed by the garbage collector (FileHandle's close on GC), only by the server itself.
 */
class KeepingBlobStore extends FsBlobStore {
  readonly streams: Array<AsyncIterable<Uint8Array> & { closed: boolean }> = [];
  override async read(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | null> {
    const stream = await super.read(key, range);
    if (stream) this.streams.push(stream as AsyncIterable<Uint8Array> & { closed: boolean });
    return stream;
  }
}

/** File descriptors of this process open on `file` now. */
function openOn(file: string): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === file) count += 1;
    } catch {
      // closed while listing
    }
  }
  return count;
}

describe.skipIf(process.platform !== 'linux')('a download whose client goes away mid-body closes the stored file (FS blob store, /proc/self/fd)', () => {
  let dir: string;
  let t: { app: Express; container: StacksContainer };
  let blobs: KeepingBlobStore;
  let server: Server;
  let alice: Session;
  let kobo: KoboDeviceUrl;
  const blob = (id: string) => realpathSync(join(t.container.storageRoot, 'books', bookFileKey(id)));

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-kobo-abort-'));
    const config = loadConfig({ DATABASE_URL: '', DATA_DIR: dir, JWT_SECRET: TEST_JWT_SECRET, BCRYPT_COST: '4', LOG_LEVEL: 'silent' });
    const container = await buildContainer(config, pino({ level: 'silent' }));
    await prepare(container, config, pino({ level: 'silent' }));
    blobs = new KeepingBlobStore(container.storageRoot);
    container.di.register(PORTS.BlobStore, { useValue: blobs });
    t = { app: createApp(httpDepsFrom(container)), container };
    server = t.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    alice = await registerUser(t.app, 'alice');
    kobo = await addKobo(t.app, alice);
    for (const id of ['for-kobo', 'for-rest']) {
      await t.container.di.resolve<BookRepository>(PORTS.BookRepository).create(aBook({ id, format: 'pdf', fileSize: SIZE, fileName: `${id}.pdf` }));
      await blobs.putBytes(bookFileKey(id), new Uint8Array(SIZE).fill(7));
    }
  }, 60_000);
  afterAll(async () => {
    server.close();
    await t.container.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts a download, reads its first bytes, stops reading (a slow reader), then drops the connection. */
  async function abandon(file: string, path: string, headers: Record<string, string>): Promise<void> {
    const { port } = server.address() as AddressInfo;
    const req = get({ host: '127.0.0.1', port, path, headers });
    req.on('error', () => undefined);
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    expect(res.statusCode).toBe(200);
    await once(res, 'data');
    res.pause();
    expect(openOn(file)).toBeGreaterThan(0);
    req.destroy();
  }

  it.each([
    ['the Kobo download', () => ['for-kobo', `${kobo.base}/v1/books/for-kobo/file`, { ...KOBO_HEADERS }] as const],
    ['the REST download, for comparison', () => ['for-rest', '/api/books/for-rest/file', bearer(alice.token)] as const],
  ])('%s', async (_name, target) => {
    const [id, path, headers] = target();
    const file = blob(id);
    expect(openOn(file)).toBe(0);
    const first = blobs.streams.length;
    for (let i = 0; i < ABORTED; i++) await abandon(file, path, headers);
    const streams = blobs.streams.slice(first);
    expect(streams).toHaveLength(ABORTED);
    // The test's timeout is the only guard against a hang: the old Kobo route never closed them.
    await until(() => streams.every((s) => s.closed) && openOn(file) === 0, 50);
    expect(openOn(file)).toBe(0);
  }, 60_000);
});
