// Input rules for text (API.md, "Authority, timing and input rules"), and how stored text is shown safely.

/** What no text field may hold: NUL, C0 controls other than tab, line feed and carriage return, DEL, and C1 controls. */
// eslint-disable-next-line no-control-regex
export const TEXT_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

/** What a name (username, shelf, key or device name) may not hold either: tab and line breaks, U+2028 and U+2029 included. */
// eslint-disable-next-line no-control-regex
export const NAME_CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;

/**
 * Half of a UTF-16 surrogate pair without its other half (`"\ud800"` in JSON): no Unicode character, so
 * not storable as UTF-8 (SQLite and MongoDB would keep replacement bytes, and two names would print alike).
 */
export const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const TEXT_CONTROL_MESSAGE = 'must not contain control characters (NUL, C0 other than tab and line breaks, DEL, C1) or unpaired surrogates';
export const NAME_CONTROL_MESSAGE = 'must not contain control characters, tabs, line breaks or unpaired surrogates';

/** Whether text is acceptable in a text field. */
export const isCleanText = (text: string): boolean => !TEXT_CONTROL.test(text) && !UNPAIRED_SURROGATE.test(text);

/** Whether text is acceptable as a name. */
export const isCleanName = (text: string): boolean => !NAME_CONTROL.test(text) && !UNPAIRED_SURROGATE.test(text);

/** One string in a parsed value that breaks the text rule: where it is, and why. */
export interface TextIssue {
  readonly field: string;
  readonly message: string;
}

/**
 * The shared text rule, applied to every parsed body, query and path (adapters/http route.ts `parse`),
 * to the upload's text parts and to the Kobo adapter's JSON bodies: every string anywhere in the value,
 * keys included, refuses NUL, C0 controls other than tab, line feed and carriage return, DEL and C1 controls,
 * and unpaired surrogates.
 */
export function controlCharacterIssues(value: unknown, path: readonly string[] = []): TextIssue[] {
  if (path.length === 0 && isCleanValue(value)) return []; // the usual case, walked without building paths
  const field = path.join('.') || '(root)';
  if (typeof value === 'string') return isCleanText(value) ? [] : [{ field, message: TEXT_CONTROL_MESSAGE }];
  if (Array.isArray(value)) return value.flatMap((item, i) => controlCharacterIssues(item, [...path, String(i)]));
  if (value === null || typeof value !== 'object' || value instanceof Date) return [];
  return Object.entries(value).flatMap(([key, item]) => [
    ...(isCleanText(key) ? [] : [{ field: [...path, key].join('.'), message: TEXT_CONTROL_MESSAGE }]),
    ...controlCharacterIssues(item, [...path, key]),
  ]);
}

// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069\\]/g;

/**
 * Stored text as a terminal line may show it: every control character (tab and line breaks included),
 * line and paragraph separators, bidi overrides and the backslash itself written as escapes (`\x1b`,
 * `\u202e`, `\\`), so no stored name can move the cursor, set the clipboard (OSC 52) or fake a line.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => {
    if (c === '\\') return '\\\\';
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Whether every string in the value, keys included, is clean text (controlCharacterIssues would find nothing). */
function isCleanValue(value: unknown): boolean {
  if (typeof value === 'string') return isCleanText(value);
  if (value === null || typeof value !== 'object' || value instanceof Date) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (!isCleanValue(item)) return false;
    return true;
  }
  for (const key of Object.keys(value)) if (!isCleanText(key) || !isCleanValue((value as Record<string, unknown>)[key])) return false;
  return true;
}
