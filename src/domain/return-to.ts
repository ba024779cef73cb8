/** The longest `return_to` accepted. */
export const RETURN_TO_MAX_LENGTH = 2048;
const MAX_DECODE_ROUNDS = 5;
// eslint-disable-next-line no-control-regex
const UNSAFE_RAW = /[\u0000-\u0020\u007f-\u009f\\\u2028\u2029]/;
/** After decoding, an encoded space (`%20`) is fine; controls and backslashes are not. */
// eslint-disable-next-line no-control-regex
const UNSAFE_DECODED = /[\u0000-\u001f\u007f-\u009f\\\u2028\u2029]/;
const RELATIVE_BASE = 'http://relative.invalid';

/** Every form the value takes under repeated percent-decoding; null when one of them is malformed. */
function decodings(value: string): string[] | null {
  const forms = [value];
  let current = value;
  for (let round = 0; round < MAX_DECODE_ROUNDS && current.includes('%'); round++) {
    try {
      current = decodeURIComponent(current);
    } catch {
      return null;
    }
    forms.push(current);
  }
  return current.includes('%') && forms.length > MAX_DECODE_ROUNDS ? null : forms;
}

function isSafeRelativePath(forms: readonly string[]): boolean {
  const raw = forms[0] as string;
  if (!forms.every((f) => f.startsWith('/') && !f.startsWith('//'))) return false;
  const resolved = new URL(raw, RELATIVE_BASE);
  return resolved.origin === RELATIVE_BASE && !resolved.pathname.startsWith('//');
}

function safeAbsoluteUrl(raw: string, allowedOrigins: readonly string[]): string | null {
  if (!/^https?:\/\/[^/]/i.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.username !== '' || url.password !== '') return null;
  return allowedOrigins.includes(url.origin) ? url.href : null;
}

/**
 * The place to send the browser after single sign-on, or null when the value is not safe: a
 * same-origin relative path (one leading `/`, no `//`, no backslash, no control or space characters,
 * also after percent-decoding) or an absolute http(s) URL on one of the allowed origins.
 */
export function safeReturnTo(value: string | undefined | null, allowedOrigins: readonly string[]): string | null {
  if (!value || value.length > RETURN_TO_MAX_LENGTH) return null;
  const forms = decodings(value);
  if (!forms || UNSAFE_RAW.test(value) || forms.some((f) => UNSAFE_DECODED.test(f))) return null;
  if (value.startsWith('/')) return isSafeRelativePath(forms) ? value : null;
  return safeAbsoluteUrl(value, allowedOrigins);
}

/** The return target with `code` appended to its query, before any fragment. */
export function withLoginCode(returnTo: string, code: string): string {
  const hashAt = returnTo.indexOf('#');
  const target = hashAt < 0 ? returnTo : returnTo.slice(0, hashAt);
  const fragment = hashAt < 0 ? '' : returnTo.slice(hashAt);
  return `${target}${target.includes('?') ? '&' : '?'}code=${encodeURIComponent(code)}${fragment}`;
}
