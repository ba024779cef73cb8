/** One part of a hand-built multipart body; `headers` are written exactly as given. */
export interface Part {
  readonly headers: string;
  readonly data: Buffer | string;
}

export const BOUNDARY = 'stacksSecurityBoundary7MA4YWxkTrZu0gW';

/** A file part with a raw (unescaped) file name, so hostile names reach the server byte for byte. */
export const filePart = (fileName: string, data: Buffer | string, field = 'file'): Part => ({
  headers: `Content-Disposition: form-data; name="${field}"; filename="${fileName}"\r\nContent-Type: application/octet-stream`,
  data,
});

export const fieldPart = (name: string, value: string): Part => ({ headers: `Content-Disposition: form-data; name="${name}"`, data: value });

/** Serialises parts into a multipart/form-data body. */
export function multipart(parts: readonly Part[], boundary = BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n${p.headers}\r\n\r\n`, 'latin1'));
    chunks.push(typeof p.data === 'string' ? Buffer.from(p.data) : p.data);
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export const multipartType = (boundary = BOUNDARY) => `multipart/form-data; boundary=${boundary}`;
