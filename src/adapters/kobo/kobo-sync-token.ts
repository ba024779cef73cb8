import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FeedPositions, KoboSyncCursor } from '../../application/use-cases/sync-kobo-library.js';

const PREFIX = 'stacks1';
const MAX_LENGTH = 4096;
const KINDS = ['book', 'member', 'shelf', 'progress'] as const;

/** What the `x-kobo-synctoken` header carries: Stacks' cursor and, when forwarding, the Kobo store's own token. */
export interface KoboSyncToken {
  readonly cursor: KoboSyncCursor | null;
  readonly storeToken: string | null;
}

/**
 * The sync token as `stacks1.<payload>.<signature>`: the cursor as base64url JSON, signed with
 * HMAC-SHA256 under a key derived from the JWT secret. A token Stacks did not sign (the Kobo store's,
 * another server's, or a tampered one) reads as a first sync, keeping a store token for forwarding.
 */
export class KoboSyncTokens {
  constructor(private readonly key: Uint8Array) {}

  encode(token: KoboSyncToken): string {
    const c = token.cursor;
    const payload = Buffer.from(JSON.stringify({
      d: c?.deviceId ?? null, r: c ? KINDS.map((k) => c.round[k]) : null, a: c ? KINDS.map((k) => c.at[k]) : null,
      e: c?.roundEndedAt.getTime() ?? null, k: token.storeToken,
    })).toString('base64url');
    return `${PREFIX}.${payload}.${this.sign(payload)}`;
  }

  decode(header: string | undefined): KoboSyncToken {
    const none = { cursor: null, storeToken: null };
    if (!header || header.length > MAX_LENGTH) return none;
    const [prefix, payload, signature, ...rest] = header.split('.');
    if (prefix !== PREFIX || !payload || !signature || rest.length > 0) return { cursor: null, storeToken: header.includes('.') ? header : null };
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return none;
    try {
      const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
      const storeToken = typeof data['k'] === 'string' ? data['k'] : null;
      const round = positions(data['r']);
      const at = positions(data['a']);
      const cursor = typeof data['d'] === 'string' && round && at && typeof data['e'] === 'number'
        ? { deviceId: data['d'], round, at, roundEndedAt: new Date(data['e']) }
        : null;
      return { cursor, storeToken };
    } catch {
      return none;
    }
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(payload).digest('base64url');
  }
}

function positions(value: unknown): FeedPositions | null {
  if (!Array.isArray(value) || value.length !== KINDS.length || !value.every((v) => Number.isSafeInteger(v) && v >= 0)) return null;
  return Object.fromEntries(KINDS.map((k, i) => [k, value[i] as number])) as unknown as FeedPositions;
}
