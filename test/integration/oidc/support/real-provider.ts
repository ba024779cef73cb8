import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { Browser } from './browser.js';

export interface AccountClaims {
  readonly email?: unknown;
  readonly email_verified?: unknown;
  readonly preferred_username?: unknown;
  readonly groups?: unknown;
}

export const CLIENT_ID = 'stacks-test';
export const CLIENT_SECRET = 'stacks-test-client-secret-0123456789';

export interface RealProvider {
  readonly issuer: string;
  /** Claims per account id (the login name typed on the provider's page); unknown ids get none. */
  readonly accounts: Map<string, AccountClaims>;
  close(): Promise<void>;
}

export async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A real OpenID Provider (oidc-provider) on loopback, with its development login and consent pages. */
export async function startRealProvider(redirectUri: string): Promise<RealProvider> {
  const accounts = new Map<string, AccountClaims>();
  let handler: ReturnType<Provider['callback']> | null = null;
  const server = createServer((req, res) => handler?.(req, res));
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [redirectUri], response_types: ['code'], grant_types: ['authorization_code'] }],
    features: { devInteractions: { enabled: true } },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username', 'groups'] },
    cookies: { keys: ['oidc-test-cookie-key-0123456789'] },
    async findAccount(_ctx, id) {
      return { accountId: id, claims: async () => ({ sub: id, ...(accounts.get(id) ?? {}) }) };
    },
  });
  handler = provider.callback();
  return { issuer, accounts, close: () => closeServer(server) };
}

/**
 * Drives the provider like a person would: follows redirects from the login URL, signs in as
 * accountId on the login page, confirms consent, and stops at the redirect back to Stacks.
 */
export async function signInAtProvider(browser: Browser, loginUrl: string, accountId: string, stopAt: string): Promise<string> {
  let url = loginUrl;
  for (let step = 0; step < 20; step++) {
    if (url.startsWith(stopAt)) return url;
    const page = await browser.request(url);
    if (page.location) {
      url = page.location;
      continue;
    }
    if (page.status !== 200) throw new Error(`provider answered ${page.status} at ${url}: ${page.body.slice(0, 300)}`);
    const form: Record<string, string> = page.body.includes('name="prompt" value="login"')
      ? { prompt: 'login', login: accountId, password: 'any' }
      : { prompt: 'consent' };
    const submitted = await browser.request(url, { method: 'POST', form });
    if (!submitted.location) throw new Error(`provider form answered ${submitted.status}: ${submitted.body.slice(0, 300)}`);
    url = submitted.location;
  }
  throw new Error('too many redirects at the provider');
}
