import type { Config } from './config.js';

/** What a request says about where it was sent: Express's `req.protocol` and `req.host` (trust-proxy aware). */
export interface RequestOrigin {
  readonly protocol: string;
  readonly host: string | undefined;
}

/** The absolute base URL a client reached Stacks by, for URLs it must be able to follow back. */
export type BaseUrlOf = (req: RequestOrigin) => string;

/** A host name, an IPv4 address or a bracketed IPv6 address, and an optional port: all a Host header may say. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * PUBLIC_URL when it is set. Otherwise each request's own scheme and Host (as the trust proxy setting lets
 * X-Forwarded-Proto and X-Forwarded-Host say), so a reader or e-reader elsewhere on the network gets URLs it
 * can reach; a Host that is not a plain host[:port] is never echoed: it gets PUBLIC_URL's localhost default.
 */
export function baseUrlOf(config: Pick<Config, 'publicUrl' | 'publicUrlConfigured'>): BaseUrlOf {
  if (config.publicUrlConfigured) return () => config.publicUrl;
  return (req) => {
    const host = req.host;
    if (typeof host !== 'string' || host.length > 261 || !HOST.test(host)) return config.publicUrl;
    return `${req.protocol === 'https' ? 'https' : 'http'}://${host.toLowerCase()}`;
  };
}
