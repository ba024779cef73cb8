import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createHttpServer, listen, stopServer } from '../../src/adapters/http/http-server.js';

/** A GET that settles with its status, or 'cut' when the server drops the socket before answering. */
const get = (port: number, path: string) => new Promise<number | 'cut'>((resolve) => {
  request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
    res.resume();
    res.on('end', () => resolve(res.statusCode ?? 0));
  }).on('error', () => resolve('cut')).end();
});

describe('the HTTP server: listen and graceful stop', () => {
  it('listens on a free port, lets a request in flight finish, and refuses new connections once stopping', async () => {
    let arrive = (): void => undefined;
    const arrived = new Promise<void>((resolve) => { arrive = resolve; });
    let answer = (): void => undefined;
    const server = createHttpServer((_req, res) => {
      answer = () => res.end('done');
      arrive();
    });
    const port = await listen(server, 0, '127.0.0.1');
    expect(port).toBeGreaterThan(0);
    const inFlight = get(port, '/slow');
    await arrived;
    const stopped = stopServer(server, 10_000);
    expect(await get(port, '/late')).toBe('cut');
    answer();
    expect(await inFlight).toBe(200);
    await stopped;
  });

  it('cuts a request still running when the grace period ends, and then resolves', async () => {
    let arrive = (): void => undefined;
    const arrived = new Promise<void>((resolve) => { arrive = resolve; });
    const server = createHttpServer(() => arrive());
    const port = await listen(server, 0, '127.0.0.1');
    const hanging = get(port, '/never');
    await arrived;
    await stopServer(server, 100);
    expect(await hanging).toBe('cut');
    expect(server.listening).toBe(false);
  });

  it('rejects when the port is taken', async () => {
    const first = createHttpServer(() => undefined);
    const port = await listen(first, 0, '127.0.0.1');
    await expect(listen(createHttpServer(() => undefined), port, '127.0.0.1')).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await stopServer(first, 100);
  });
});
