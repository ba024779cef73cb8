/** A minimal browser for tests: a cookie jar (name, path, per origin) and manual redirects. */

interface StoredCookie {
  readonly origin: string;
  readonly name: string;
  readonly value: string;
  readonly path: string;
}

export interface BrowserResponse {
  readonly status: number;
  readonly location: string | null;
  readonly setCookies: string[];
  readonly body: string;
  readonly url: string;
}

export class Browser {
  private cookies: StoredCookie[] = [];

  /** One request, no redirect followed; cookies sent and stored. */
  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {},
  ): Promise<BrowserResponse> {
    const target = new URL(url);
    const headers: Record<string, string> = { ...init.headers };
    const cookie = this.cookieHeader(target);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    const res = await fetch(target, { method: init.method ?? 'GET', headers, body, redirect: 'manual' });
    const setCookies = res.headers.getSetCookie();
    for (const line of setCookies) this.store(target, line);
    const location = res.headers.get('location');
    return { status: res.status, location: location ? new URL(location, target).href : null, setCookies, body: await res.text(), url: target.href };
  }

  /** The Cookie header this browser would send to url. */
  cookieHeader(url: URL): string {
    return this.cookies
      .filter((c) => c.origin === url.origin && (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }

  /** Every cookie this browser holds for the origin. */
  cookiesFor(origin: string): StoredCookie[] {
    return this.cookies.filter((c) => c.origin === origin);
  }

  private store(url: URL, line: string): void {
    const [pair = '', ...attributes] = line.split(';').map((p) => p.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const attr = (key: string) => attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.split('=')[1];
    const path = attr('path') ?? '/';
    const expires = attr('expires');
    const maxAge = attr('max-age');
    const expired = (maxAge !== undefined && Number(maxAge) <= 0) || (expires !== undefined && new Date(expires).getTime() < Date.now()) || value === '';
    this.cookies = this.cookies.filter((c) => !(c.origin === url.origin && c.name === name && c.path === path));
    if (!expired) this.cookies.push({ origin: url.origin, name, value, path });
  }
}
