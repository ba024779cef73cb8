import type { Request } from 'express';

/** What the Kobo store answered a forwarded request. */
export interface StoreAnswer {
  readonly status: number;
  readonly body: unknown;
  /** Its `x-kobo-*` headers. */
  readonly headers: Readonly<Record<string, string>>;
}

const FORWARDED = new Set(['authorization', 'user-agent', 'accept', 'accept-language', 'content-type']);
const TIMEOUT_MS = 10_000;

/**
 * Forwards what Stacks does not answer itself to the Kobo store (KOBO_STORE_FORWARDING=true), as
 * Calibre-Web and Komga do: the path after the sync URL, the query, the body, and only the headers the
 * store reads (the `x-kobo-*` ones, authorization, user agent, accept, content type; never the sync
 * token, the client address or a cookie). A store that fails or takes over 10 s is treated as absent.
 */
export class KoboStore {
  constructor(private readonly baseUrl: string) {}

  async forward(req: Request, path: string, body?: Buffer, storeToken?: string | null): Promise<StoreAnswer | null> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value !== 'string') continue;
      if ((FORWARDED.has(name) || name.startsWith('x-kobo-')) && name !== 'x-kobo-synctoken') headers[name] = value;
    }
    if (storeToken) headers['x-kobo-synctoken'] = storeToken;
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
    try {
      const response = await fetch(`${this.baseUrl}${path}${query}`, {
        method: req.method, headers, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS),
        ...(body && body.length > 0 && req.method !== 'GET' && req.method !== 'HEAD' ? { body } : {}),
      });
      const text = await response.text();
      const kobo: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        if (name.startsWith('x-kobo-')) kobo[name] = value;
      });
      let parsed: unknown = {};
      try {
        parsed = text ? JSON.parse(text) : {};
      } catch {
        parsed = {};
      }
      return { status: response.status, body: parsed, headers: kobo };
    } catch {
      return null;
    }
  }
}
