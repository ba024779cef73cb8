import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { RawResponse } from './raw-http.js';
import type { Schema } from './schema-arbitrary.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export interface Operation {
  readonly method: string;
  readonly path: string;
  readonly op: {
    security?: unknown;
    parameters?: Array<{ name: string; in: string; required?: boolean; schema: Schema }>;
    requestBody?: { content: Record<string, { schema: Schema }> };
    responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  };
}

/** The operation asks for credentials: a non-empty `security` (public operations say `security: []`). */
export const needsCredentials = (op: { readonly security?: unknown }): boolean => Array.isArray(op.security) && op.security.length > 0;

export interface Violation { readonly op: string; readonly status: number; readonly problem: string; readonly request: string }

/** Checks answers against the document: documented status, and the documented schema for JSON bodies. */
export class ResponseChecker {
  private readonly ajv = addFormats(new Ajv({ strict: false, allErrors: false, validateFormats: true }));
  private readonly cache = new Map<string, ValidateFunction>();
  readonly violations: Violation[] = [];
  requests = 0;
  fiveXx = 0;
  /** How often each status was seen, to show the generators reach past validation. */
  readonly statuses = new Map<number, number>();

  constructor(doc: { components?: unknown }) {
    this.ajv.addSchema({ $id: 'doc', components: doc.components } as object);
  }

  check(o: Operation, res: RawResponse, described: string): void {
    this.requests += 1;
    this.statuses.set(res.status, (this.statuses.get(res.status) ?? 0) + 1);
    const name = `${o.method.toUpperCase()} ${o.path}`;
    const fail = (problem: string): void => void this.violations.push({ op: name, status: res.status, problem, request: described.slice(0, 300) });
    if (res.status >= 500 || res.status < 100) {
      this.fiveXx += res.status >= 500 ? 1 : 0;
      return fail(res.status < 100 ? 'connection error' : `5xx: ${res.text.slice(0, 200)}`);
    }
    const documented = o.op.responses[String(res.status)];
    if (!documented) return fail(`undocumented status: ${res.text.slice(0, 200)}`);
    const type = String(res.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (!documented.content) return res.text.length === 0 ? undefined : fail(`body on a status documented without one (${type})`);
    const media = documented.content[type] ?? documented.content[`${type.split('/')[0]}/*`] ?? documented.content['*/*'];
    if (!media) return fail(`content type ${type} not documented for ${res.status}`);
    if (!/json/.test(type)) return;
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      return fail('body is not JSON');
    }
    const validate = this.validator(media.schema);
    if (!validate(body)) fail(`schema: ${this.ajv.errorsText(validate.errors).slice(0, 300)}`);
  }

  private validator(schema: Schema): ValidateFunction {
    const key = JSON.stringify(schema);
    let v = this.cache.get(key);
    if (!v) {
      v = this.ajv.compile(JSON.parse(key.replace(/"#\/components\//g, '"doc#/components/')) as object);
      this.cache.set(key, v);
    }
    return v;
  }
}
