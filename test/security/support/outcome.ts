import type { Response } from 'supertest';
import type { World } from './world.js';

/** Anything in a body that looks like a stack frame, a source path or a driver message. */
export const STACK_TRACE = /at .*\(|node_modules|\/src\/|SyntaxError|MongoServerError|SqliteError/;

/** What one attack observed; `succeeded` means the safe behaviour was NOT seen. */
export interface Outcome {
  readonly status: number;
  readonly succeeded: boolean;
  readonly fiveXx: boolean;
  readonly stackTrace: boolean;
  readonly alive: boolean;
  readonly note: string;
}

/** One named case of the catalogue: `row` is the requirement id in security-bar.md. */
export interface Attack {
  readonly id: string;
  readonly row: string;
  readonly name: string;
  readonly timeoutMs?: number;
  run(world: World): Promise<Outcome>;
}

/** The minimal shape of a response: supertest's, or a raw one. */
export interface Seen {
  readonly status: number;
  readonly text?: string;
  readonly headers: Record<string, unknown>;
}

/** Error bodies are scanned (a 2xx document such as /openapi.json may legitimately say "at most 72 bytes (…"). */
const textual = (res: Seen): string => {
  const type = String(res.headers['content-type'] ?? '');
  if (res.status < 400 && !/problem/.test(type)) return '';
  if (type && !/json|text|html|xml/.test(type)) return '';
  return res.text ?? '';
};

/** Judges an attack from every response it saw and whether the safe behaviour held. */
export function verdict(responses: Seen | readonly Seen[], safe: boolean, note = ''): Outcome {
  const all = Array.isArray(responses) ? (responses as readonly Seen[]) : [responses as Seen];
  const last = all[all.length - 1];
  return {
    status: last?.status ?? 0,
    succeeded: !safe,
    fiveXx: all.some((r) => r.status >= 500),
    stackTrace: all.some((r) => STACK_TRACE.test(textual(r))),
    alive: true,
    note: safe ? note : `${note} [statuses ${all.map((r) => r.status).join(',')}]`.trim(),
  };
}

/** Whether a response is the generic problem+json error shape with the given status. */
export function isProblem(res: Response | Seen, status: number | readonly number[]): boolean {
  const statuses = typeof status === 'number' ? [status] : status;
  return statuses.includes(res.status) && /^application\/problem\+json/.test(String(res.headers['content-type'] ?? ''));
}

/** Shorthand for attack declarations. */
export const attack = (row: string, slug: string, name: string, run: Attack['run'], timeoutMs?: number): Attack => ({
  id: `${row}.${slug}`,
  row,
  name,
  run,
  ...(timeoutMs ? { timeoutMs } : {}),
});
