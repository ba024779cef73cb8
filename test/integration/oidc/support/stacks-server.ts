import { createServer, type RequestListener } from 'node:http';
import { startTestApp, type TestApp } from '../../../support/test-app.js';
import { Browser } from './browser.js';
import { closeServer, listen, signInAtProvider } from './real-provider.js';

export interface StacksServer {
  /** PUBLIC_URL: where the test app is served. */
  readonly url: string;
  readonly callbackUrl: string;
  /** Starts the real test app with these settings and serves it at url. */
  start(env: Record<string, string>): Promise<TestApp>;
  close(): Promise<void>;
}

/** Reserves a loopback port first, so PUBLIC_URL (and the provider's redirect URI) are known before the app. */
export async function openStacksServer(): Promise<StacksServer> {
  let app: RequestListener | null = null;
  let test: TestApp | null = null;
  const server = createServer((req, res) => (app ? app(req, res) : res.writeHead(503).end()));
  const url = `http://127.0.0.1:${await listen(server)}`;
  return {
    url,
    callbackUrl: `${url}/api/auth/oidc/callback`,
    async start(env) {
      test = await startTestApp({ PUBLIC_URL: url, ...env });
      app = test.app as unknown as RequestListener;
      return test;
    },
    async close() {
      await closeServer(server);
      await test?.close();
    },
  };
}

/** Starts single sign-on in browser, signs in at the provider, and returns the callback URL it was sent to. */
export async function signInUpToCallback(stacks: StacksServer, browser: Browser, accountId: string, returnTo?: string): Promise<string> {
  const query = returnTo === undefined ? '' : `?return_to=${encodeURIComponent(returnTo)}`;
  const start = await browser.request(`${stacks.url}/api/auth/oidc/login${query}`);
  if (start.status !== 302 || !start.location) throw new Error(`login answered ${start.status}: ${start.body}`);
  return signInAtProvider(browser, start.location, accountId, stacks.callbackUrl);
}

export { Browser };
