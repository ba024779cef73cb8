import fc from 'fast-check';
import { BOUNDARY, filePart, multipart, multipartType } from './multipart.js';

const b64 = (s: string) => Buffer.from(s).toString('base64url');
const headerSafe = (s: string) => s.replace(/[^\x20-\x7e]/g, '');

/** Authorization header values that must all fail closed (TOK-07); arrays send the header twice. */
export function malformedToken(valid: string): fc.Arbitrary<string | string[]> {
  const segment = fc.string({ maxLength: 40 }).map(b64);
  return fc.oneof(
    fc.string({ maxLength: 200 }).map((s) => headerSafe(`Bearer ${s}`)),
    fc.string({ unit: 'binary-ascii', maxLength: 200 }).map(headerSafe),
    fc.array(segment, { minLength: 1, maxLength: 5 }).map((xs) => `Bearer ${xs.join('.')}`),
    fc.jsonValue().map((v) => `Bearer ${b64('{"alg":"HS256"}')}.${b64(JSON.stringify(v) ?? 'null')}.${b64('sig')}`),
    fc.constantFrom('Bearer', 'Bearer ', 'bearer', 'Basic dXNlcjpwYXNz', 'Bearer null', 'Bearer undefined', 'Bearer ...', 'Bearer =.=.=',
      `Bearer ${valid}x`, `Bearer ${valid.slice(0, -2)}`, `Bearer ${valid.replace(/\./g, '..')}`, `Token ${valid}`, `Bearer  ${valid} extra`),
    fc.integer({ min: 5_000, max: 100_000 }).map((n) => `Bearer ${'A'.repeat(n)}`),
    fc.tuple(fc.string({ maxLength: 20 }).map(headerSafe), fc.boolean()).map(([junk, first]) => (first ? [`Bearer ${junk}`, `Bearer ${valid}`] : [`Bearer ${valid}`, `Bearer ${junk}`])),
    segment.map((s) => `Bearer ${b64('{"alg":"none"}')}.${s}.`),
  );
}

/** Multipart bodies with broken structure (wrong or missing boundary, truncation, garbage headers, nesting). */
export function malformedMultipart(): fc.Arbitrary<{ type: string; body: Buffer }> {
  const good = multipart([filePart('ok.txt', 'fine\n')]);
  return fc.oneof(
    fc.uint8Array({ maxLength: 2000 }).map((a) => ({ type: multipartType(), body: Buffer.from(a) })),
    fc.integer({ min: 0, max: good.length - 1 }).map((n) => ({ type: multipartType(), body: good.subarray(0, n) })),
    fc.constantFrom('multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; boundary="unterminated', `multipart/form-data; boundary=${'b'.repeat(200)}`,
      'multipart/form-data; boundary=other', 'multipart/mixed; boundary=x', `multipart/form-data; boundary=${BOUNDARY}; boundary=second`)
      .map((type) => ({ type, body: good })),
    fc.string({ maxLength: 300 }).map((h) => ({ type: multipartType(), body: Buffer.from(`--${BOUNDARY}\r\n${h}\r\n\r\nx\r\n--${BOUNDARY}--\r\n`, 'latin1') })),
    fc.string({ maxLength: 50 }).map((name) => ({ type: multipartType(), body: multipart([{ headers: `Content-Disposition: form-data; name="${name}"; filename="a.txt"`, data: 'x' }]) })),
    fc.integer({ min: 1, max: 5 }).map((n) => ({ type: multipartType(), body: multipart(Array.from({ length: n }, (_, i) => filePart(`f${i}.txt`, `part ${i}\n`))) })),
    fc.constant({ type: multipartType(), body: multipart([{ headers: `Content-Disposition: form-data; name="file"; filename="n.txt"\r\nContent-Type: multipart/mixed; boundary=inner`, data: '--inner\r\n\r\nx\r\n--inner--' }]) }),
    fc.constant({ type: multipartType(), body: Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="x.txt"\r\n${'X-Header: y\r\n'.repeat(3000)}\r\nx\r\n--${BOUNDARY}--\r\n`) }),
  );
}
