import fc from 'fast-check';

/** A JSON Schema node as the OpenAPI 3.1 document writes it. */
export type Schema = {
  $ref?: string; type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; items?: Schema;
  enum?: unknown[]; const?: unknown; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[]; pattern?: string; format?: string;
  minLength?: number; maxLength?: number; minimum?: number; maximum?: number; minItems?: number; maxItems?: number;
  additionalProperties?: boolean | Schema;
};

export type Resolve = (schema: Schema) => Schema;

/** Resolves `#/components/schemas/X` references against the document. */
export function resolver(doc: { components?: { schemas?: Record<string, Schema> } }): Resolve {
  return (s) => {
    let cur = s;
    for (let i = 0; i < 10 && cur.$ref; i++) cur = doc.components?.schemas?.[cur.$ref.split('/').pop()!] ?? {};
    return cur;
  };
}

/** Hostile values that fit no schema: operator objects, prototype keys, huge and odd strings, wrong types. */
export const HOSTILE: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>({ $ne: null }, { $gt: '' }, { $where: 'sleep(5000)' }, { $regex: '.*' }, ['$ne'], null, true, -1, 0, 1e308, -0,
    '', ' ', '\u0000', '../../etc/passwd', '%00', '{"$ne":null}', "' OR '1'='1", '<script>alert(1)</script>', '\u202E', '😀'.repeat(40),
    JSON.parse('{"__proto__":{"isAdmin":true}}'), { constructor: { prototype: { isAdmin: true } } }, [[[[[]]]]], {}),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ minLength: 300, maxLength: 5000 }),
  fc.integer(),
  fc.double(),
  fc.array(fc.string(), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
);

const types = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

function stringOf(s: Schema): fc.Arbitrary<string> {
  if (s.pattern) return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length <= (s.maxLength ?? 1e9) && v.length >= (s.minLength ?? 0));
  if (s.format === 'email') return fc.emailAddress().filter((e) => e.length <= (s.maxLength ?? 254));
  if (s.format === 'date-time') return fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString());
  if (s.format === 'uri') return fc.webUrl();
  const maxLength = Math.min(s.maxLength ?? 60, 120);
  const unit = fc.oneof(fc.constantFrom('a', 'b', ' ', '.', '-'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }));
  return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.max(maxLength, s.minLength ?? 0), unit });
}

/** Values that satisfy the schema (as far as JSON Schema goes). */
export function valid(schema: Schema, resolve: Resolve, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.anyOf || s.oneOf) return fc.oneof(...(s.anyOf ?? s.oneOf)!.map((x) => valid(x, resolve, depth + 1)));
  if (s.allOf) return valid(Object.assign({}, ...s.allOf.map(resolve)) as Schema, resolve, depth + 1);
  const options = types(s).map((t): fc.Arbitrary<unknown> => {
    switch (t) {
      case 'null': return fc.constant(null);
      case 'boolean': return fc.boolean();
      case 'integer': return fc.integer({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6 });
      case 'number': return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
      case 'string': return stringOf(s);
      case 'array': return depth > 4 ? fc.constant([]) : fc.array(valid(s.items ?? {}, resolve, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 5, 5) });
      case 'object': return objectOf(s, resolve, depth);
      default: return fc.constant(null);
    }
  });
  if (options.length === 0) return s.properties ? objectOf(s, resolve, depth) : fc.jsonValue({ maxDepth: 2 });
  return options.length === 1 ? options[0]! : fc.oneof(...options);
}

function objectOf(s: Schema, resolve: Resolve, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props = s.properties ?? {};
  const required = new Set(s.required ?? []);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, v] of Object.entries(props)) record[k] = valid(v, resolve, depth + 1);
  return fc.record(record, { requiredKeys: Object.keys(props).filter((k) => required.has(k)) });
}

/** Valid values plus mutations: a field missing, one extra, one of the wrong type, or a hostile whole. */
export function mutated(schema: Schema, resolve: Resolve): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  const base = valid(s, resolve);
  const keys = Object.keys(s.properties ?? {});
  const asObject = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? { ...(v as object) } : {}) as Record<string, unknown>;
  return fc.oneof(
    { weight: 4, arbitrary: base },
    { weight: 1, arbitrary: HOSTILE },
    ...(keys.length ? [
      { weight: 1, arbitrary: fc.tuple(base, fc.constantFrom(...keys)).map(([v, k]) => { const o = asObject(v); delete o[k]; return o; }) },
      { weight: 1, arbitrary: fc.tuple(base, fc.constantFrom(...keys), HOSTILE).map(([v, k, h]) => ({ ...asObject(v), [k]: h })) },
    ] : []),
    { weight: 1, arbitrary: fc.tuple(base, fc.constantFrom('evil', '$where', 'owner', 'isAdmin', 'constructor', 'a.b'), HOSTILE).map(([v, k, h]) => ({ ...asObject(v), [k]: h })) },
    { weight: 1, arbitrary: base.map((v) => `{"__proto__":{"isAdmin":true},${JSON.stringify(asObject(v)).slice(1)}`).map((raw) => ({ __raw: raw })) },
  );
}

/** Query/path values: valid ones as text, or hostile text. */
export function parameterValue(schema: Schema, resolve: Resolve): fc.Arbitrary<string> {
  const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  return fc.oneof(
    { weight: 4, arbitrary: valid(schema, resolve).map(asText) },
    { weight: 1, arbitrary: HOSTILE.map(asText) },
  );
}
