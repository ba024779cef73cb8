/** Every requirement row of security-bar.md section 1 this catalogue answers for (DUR-* belong to the reliability suite). */
export const REQUIRED_ROWS = [
  ...range('AUTH', 12), ...range('TOK', 9), ...range('AC', 7), ...range('IN', 8), ...range('UP', 12),
  ...range('OIDC', 8), ...range('CFG', 7), ...range('RES', 4),
];

/** Rows (or parts of rows) that do not apply to the documented contract, with the reason. */
export const NOT_APPLICABLE: Readonly<Record<string, string>> = {};

/** Parts of rows deliberately left out, printed with the summary. */
export const PARTS_NOT_APPLICABLE: readonly string[] = [
  'AUTH-01 common-password list: not in the API contract (minimum 8 characters, maximum 72 UTF-8 bytes)',
  'UP-10 per-user quota: not in the API contract (MAX_UPLOAD_MB per file only)',
  'CFG-06 Spectral OWASP lint: Spectral is not installed; inventory.test.ts covers routes both ways',
];

function range(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}-${String(i + 1).padStart(2, '0')}`);
}
