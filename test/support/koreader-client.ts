/*
 * KOReader's kosync client as each release runs it, for replaying Stacks' answers through it.
 *
 * - The JSON middleware (lua-Spore's Format.JSON) turns a response body into a table only when the
 *   Content-Type passes its test; otherwise `res.body` stays the raw string. The test changed with the
 *   lua-Spore that koreader-base bundled at each release (koreader/koreader-base,
 *   thirdparty/lua-Spore/CMakeLists.txt at the `base` commit of each koreader/koreader tag):
 *   v2025.04 lua-Spore 0.4.0 (`header == 'application/json'`); v2025.08 0.4.0 with
 *   content-type-detection.patch (lower-cased, `application/json` exactly or followed by `;`);
 *   v2025.10 0.4.1 (replayed with `find(header, 'application/json', 1, true)`, the test the 2026 patch
 *   replaces in 0.4.2: 0.4.1's own source was not readable here; KOReader dropped its own fix of
 *   0.4.0's exact match when it moved to 0.4.1);
 *   v2026.03 onwards 0.4.2 with detect-more-json-content-types.patch (the part before `;` matches
 *   `^%s*application/[%w.]-%+?json%s*$`, fixed for plain application/json by koreader-base #2267).
 * - lua-Spore's Core raises when the status is not in the method's `expected_status` (api.json); the
 *   plugin's pcall then hands on `res.body` of the exception, which is nil.
 * - KOSyncClient.lua: register succeeds on 201, authorize on 200, update_progress and get_progress on 200.
 * - main.lua shows `body.message` after a failed register or login when the body is a table, else
 *   "Unknown server error"; a pull with no `percentage` says "No progress found for this document."
 */

export interface SporeJsonRule {
  readonly release: string;
  readonly spore: string;
  /** Whether Format.JSON decodes a body under this Content-Type header (undefined: no header). */
  decodes(contentType: string | undefined): boolean;
}

export const SPORE_JSON_RULES: readonly SporeJsonRule[] = [
  { release: 'v2025.04', spore: '0.4.0', decodes: (h) => h === 'application/json' },
  {
    release: 'v2025.08', spore: '0.4.0 + content-type-detection.patch',
    decodes: (h) => {
      const header = (h ?? '').toLowerCase();
      return header === 'application/json' || /^application\/json\s*;/.test(header);
    },
  },
  { release: 'v2025.10', spore: '0.4.1', decodes: (h) => h !== undefined && h.includes('application/json') },
  {
    release: 'v2026.03 – v2026.07', spore: '0.4.2 + detect-more-json-content-types.patch',
    decodes: (h) => {
      const mime = h === undefined ? undefined : /[^;]+/.exec(h)?.[0];
      return mime !== undefined && /^\s*application\/[A-Za-z0-9.]*?\+?json\s*$/.test(mime);
    },
  },
];

export type KosyncMethod = 'register' | 'authorize' | 'update_progress' | 'get_progress';

/** plugins/kosync.koplugin/api.json, expected_status of each method. */
export const EXPECTED_STATUS: Readonly<Record<KosyncMethod, readonly number[]>> = {
  register: [201, 402],
  authorize: [200, 401],
  update_progress: [200, 202, 401],
  get_progress: [200, 401],
};

const SUCCESS: Readonly<Record<KosyncMethod, number>> = { register: 201, authorize: 200, update_progress: 200, get_progress: 200 };

/** What the plugin's callback receives: KOSyncClient's `ok` and `res.body` (a table, the raw string, or nil). */
export interface ClientResult {
  readonly ok: boolean;
  readonly body: Record<string, unknown> | string | undefined;
}

/** One HTTP answer through Format.JSON, Spore's expected_status check and KOSyncClient. */
export function throughClient(method: KosyncMethod, status: number, contentType: string | undefined, text: string, rule: SporeJsonRule): ClientResult {
  let body: Record<string, unknown> | string = text;
  if (rule.decodes(contentType)) {
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return { ok: false, body: undefined }; // Format.JSON raises on a body it cannot decode
    }
  }
  if (!EXPECTED_STATUS[method].includes(status)) return { ok: false, body: undefined };
  return { ok: status === SUCCESS[method], body };
}

/** What main.lua shows after Register or Login (doRegister / doLogin). */
export function signInShows(method: 'register' | 'authorize', result: ClientResult): string {
  if (result.ok) return method === 'register' ? 'Registered to KOReader server.' : 'Logged in to KOReader server.';
  const message = typeof result.body === 'object' ? result.body['message'] : undefined;
  return typeof message === 'string' ? message : 'Unknown server error';
}
