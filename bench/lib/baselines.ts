import { fileURLToPath } from 'node:url';
import { freePort, startChildServer, type ChildServer } from './child-server.js';

export type BaselineKind = 'express' | 'node-http';

const SCRIPTS: Record<BaselineKind, string> = {
  express: 'baselines/express-hello.mjs',
  'node-http': 'baselines/node-hello.mjs',
};

/** The path every baseline serves: GET /hello -> {"hello":"world"}. */
export const BASELINE_PATH = '/hello';

/** Starts a hello-world baseline server as a child process on a free loopback port. */
export async function startBaseline(kind: BaselineKind): Promise<ChildServer> {
  const port = await freePort();
  return startChildServer({
    command: process.execPath,
    args: [fileURLToPath(new URL(SCRIPTS[kind], import.meta.url))],
    env: { PATH: process.env.PATH, PORT: String(port), NODE_ENV: 'production' },
    port,
    readyPath: BASELINE_PATH,
  });
}
