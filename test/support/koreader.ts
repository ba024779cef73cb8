import { md5Of } from './koreader-reference.js';

/*
 * KOReader's kosync plugin as the tests replay it (koreader/koreader, plugins/kosync.koplugin; read at
 * KOSyncClient.lua 0bb0674f, api.json 4ed26fe2, main.lua 004b2f0e):
 * - KOSyncClient.lua, KOSyncClient:init: the GinClient middleware sets
 *   `accept: application/vnd.koreader.v1+json`; KOSyncAuth sets `x-auth-user` (the username) and
 *   `x-auth-key` (the userkey).
 * - main.lua, KOSync:doLogin / doRegister: `userkey = md5(password)`, the lowercase hex MD5.
 * - KOSyncClient:update_progress sends {document, progress = tostring(progress), percentage (a
 *   number), device = Device.model, device_id (random.uuid() saved once per install)}; each callback
 *   succeeds only on `res.status == 200` (register: `== 201`; otherwise main.lua shows `body.message`).
 * - api.json expected_status: register [201, 402], authorize [200, 401], update_progress
 *   [200, 202, 401], get_progress [200, 401] at `/syncs/progress/:document`.
 * - main.lua, KOSync:getProgress callback: decidePull below, step for step.
 * - lua-Spore's Format.JSON middleware (enabled on every call) decodes a body only under the content
 *   types its release accepts (support/koreader-client.ts); a status outside expected_status raises,
 *   and KOReader then shows no `message`.
 */

/** What KOReader puts in `x-auth-key` for what the person typed as password. */
export const koreaderKey = (password: string): string => md5Of(password);

/** The headers every authenticated kosync request carries. */
export const koreaderHeaders = (username: string, password: string) => ({
  accept: 'application/vnd.koreader.v1+json',
  'x-auth-user': username,
  'x-auth-key': koreaderKey(password),
});

/** optmath's Math.roundPercent: four decimals, rounded down. */
export const roundPercent = (percent: number): number => Math.floor(percent * 10000) / 10000;

/** One KOReader install reading one document. */
export interface ReaderState {
  readonly model: string;
  readonly deviceId: string;
  progress: string;
  percentage: number;
  /** os.time() of the last page turn. */
  lastPageTurn: number;
}

export type PullDecision =
  | { readonly kind: 'error' | 'no-progress' | 'from-this-device' | 'already-synced' | 'stay' }
  | { readonly kind: 'go-to' | 'prompt-go-to'; readonly progress: string };

/**
 * KOSync:getProgress's callback with the default settings (whisper_forward PROMPT,
 * whisper_backward DISABLE): what the reader does with a pull answer.
 */
export function decidePull(reader: ReaderState, ok: boolean, body: Record<string, unknown> | undefined, interactive: boolean): PullDecision {
  if (!ok || !body) return { kind: 'error' };
  if (body['percentage'] === undefined || body['percentage'] === null) return { kind: 'no-progress' };
  if (body['device'] === reader.model && body['device_id'] === reader.deviceId) return { kind: 'from-this-device' };
  const percentage = roundPercent(body['percentage'] as number);
  if (roundPercent(reader.percentage) === percentage || body['progress'] === reader.progress) return { kind: 'already-synced' };
  const progress = String(body['progress']);
  if (interactive) return { kind: 'go-to', progress };
  const selfOlder = body['timestamp'] !== undefined ? (body['timestamp'] as number) > reader.lastPageTurn : percentage > reader.percentage;
  return selfOlder ? { kind: 'prompt-go-to', progress } : { kind: 'stay' };
}
