import { Agent, request } from 'node:http';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, unknown>;
  readonly text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/** One request with full control of headers (arrays send the header twice) and a raw body. */
export function rawRequest(base: string, method: string, path: string, headers: Record<string, string | string[]> = {}, body?: Buffer | string): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, agent });
    for (const [k, v] of Object.entries(headers)) req.setHeader(k, v);
    if (body !== undefined) req.setHeader('Content-Length', Buffer.byteLength(body));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, unknown>, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export function closeAgent(): void {
  agent.destroy();
}
