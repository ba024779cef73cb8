import { connect, type Socket } from 'node:net';

export interface HeldAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** A request whose headers and first bytes of body were sent; `finish` sends the rest and reads the answer. */
export interface HeldRequest {
  finish(): Promise<HeldAnswer>;
}

/** Reads everything the server sends until it closes the connection (the request said `Connection: close`). */
function answerOf(socket: Socket): Promise<HeldAnswer> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => {
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const payload = text.slice(text.indexOf('\r\n\r\n') + 4);
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(/chunked/i.test(text.slice(0, text.indexOf('\r\n\r\n'))) ? dechunk(payload) : payload) as Record<string, unknown>;
      } catch {
        body = { raw: payload.slice(0, 200) };
      }
      resolve({ status, body });
    });
    socket.on('error', () => undefined);
  });
}

function dechunk(payload: string): string {
  let out = '';
  let rest = payload;
  for (;;) {
    const line = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, line), 16);
    if (!size) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}

/**
 * Opens a connection, sends the request line, the headers and the first `heldBytes` of the body, and
 * holds the rest until `finish`.
 */
export async function holdRequest(
  base: string, method: string, path: string, headers: Record<string, string>, body: Buffer, heldBytes = 5,
): Promise<HeldRequest> {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const answer = answerOf(socket);
  const lines = [`${method.toUpperCase()} ${path} HTTP/1.1`, `Host: ${url.host}`, 'Connection: close', `Content-Length: ${body.length}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  socket.write(body.subarray(0, heldBytes));
  return {
    finish: async () => {
      socket.write(body.subarray(heldBytes));
      return answer;
    },
  };
}
