/**
 * Breaking changes between two OpenAPI 3.1 documents, as a client generated from the previous one
 * meets them (test/openapi/compatibility.test.ts; docs/clients.md, "API versioning"). No npm tool fits: the
 * diff tools on the registry read OpenAPI 3.0 only (openapi-diff refuses 3.1; api-smart-diff calls a
 * response field's type change non-breaking), download a binary at install, or report usage.
 *
 * Breaking:
 * - an operation (method and path) is gone, or its operationId changed or was dropped;
 * - an operation that was public needs credentials;
 * - a request parameter is gone, or a required one is new, or an optional one became required;
 * - a request body became required, or a media type it took is gone;
 * - in a request (parameter or body): a field is gone; a field is new and required, or became
 *   required; the types accepted narrow (string|null to string, number to integer); an accepted enum
 *   value is gone or an enum appears; a bound tightens (maxLength, maximum, maxItems, maxProperties
 *   lower; their min counterparts higher; a bound where there was none); a pattern appears or changes;
 * - a success response status (2XX, 3XX) is gone;
 * - in a response still given (success or error, the Problem body too): a media type is gone; a
 *   required field is gone or became optional; the types returned widen or change (string to
 *   string|null, integer to string); an enum is dropped;
 * - anywhere: a format changes, appears or goes (generators map formats to types: date-time to Date);
 *   a union (anyOf, oneOf, allOf) changes its number of branches (same count: compared branch by branch).
 * Not breaking: everything added or relaxed (operations, optional parameters and fields, response
 * fields, statuses and enum values, error statuses given or no longer given, wider request types,
 * looser request bounds), and
 * text (descriptions, summaries, examples, tags, servers, info).
 */

type Json = Readonly<Record<string, unknown>>;
type Direction = 'request' | 'response';

interface Document {
  readonly info: { readonly version: string };
  readonly paths: Readonly<Record<string, Json>>;
  readonly security?: readonly unknown[];
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'];
const UPPER_BOUNDS = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties'];
const LOWER_BOUNDS = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties'];
const UNIONS = ['anyOf', 'oneOf', 'allOf'];

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const objectAt = (value: unknown, key: string): Json => (isObject(value) && isObject(value[key]) ? value[key] : {});
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const listed = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');

/** A local `$ref` (`#/components/...`) followed to what it names; its sibling keywords stay. */
function resolve(doc: Document, node: unknown, seen = new Set<string>()): Json {
  if (!isObject(node) || typeof node['$ref'] !== 'string') return isObject(node) ? node : {};
  const ref = node['$ref'];
  if (!ref.startsWith('#/') || seen.has(ref)) throw new Error(`cannot follow $ref ${ref}`);
  const target = ref.slice(2).split('/').map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((at, part) => (isObject(at) ? at[part] : undefined), doc);
  if (target === undefined) throw new Error(`dangling $ref ${ref}`);
  const { $ref: _ref, ...siblings } = node;
  return { ...resolve(doc, target, seen.add(ref)), ...siblings };
}

function typesOf(schema: Json): string[] | null {
  if (Array.isArray(schema['type'])) return schema['type'] as string[];
  return typeof schema['type'] === 'string' ? [schema['type']] : null;
}

/** Every type of `inner` is one of `outer` (an integer is a number; no types: anything). */
function covers(outer: string[] | null, inner: string[] | null): boolean {
  if (outer === null) return true;
  if (inner === null) return false;
  return inner.every((t) => outer.includes(t) || (t === 'integer' && outer.includes('number')));
}

const valuesOf = (schema: Json): readonly unknown[] | undefined =>
  Array.isArray(schema['enum']) ? schema['enum'] : 'const' in schema ? [schema['const']] : undefined;

class Comparison {
  readonly breaking: string[] = [];
  private readonly compared = new Set<string>();

  constructor(private readonly before: Document, private readonly after: Document) {}

  private report(where: string, what: string): void {
    this.breaking.push(`${where}: ${what}`);
  }

  operations(): void {
    for (const [path, itemBefore] of Object.entries(this.before.paths)) {
      for (const method of METHODS.filter((m) => isObject(itemBefore[m]))) {
        const where = `${method.toUpperCase()} ${path}`;
        const itemAfter = this.after.paths[path] ?? {};
        if (!isObject(itemAfter[method])) this.report(where, 'the operation is gone');
        else this.operation(where, [itemBefore, itemBefore[method] as Json], [itemAfter, itemAfter[method] as Json]);
      }
    }
  }

  private operation(where: string, [itemB, b]: [Json, Json], [itemA, a]: [Json, Json]): void {
    if (b['operationId'] !== undefined && b['operationId'] !== a['operationId']) {
      this.report(where, `operationId ${String(b['operationId'])} became ${String(a['operationId'] ?? '(none)')}`);
    }
    const isPublic = (op: Json, doc: Document) => ((op['security'] ?? doc.security ?? []) as unknown[]).length === 0;
    if (isPublic(b, this.before) && !isPublic(a, this.after)) this.report(where, 'was public, now needs credentials');
    this.parameters(where, this.parametersOf(this.before, itemB, b), this.parametersOf(this.after, itemA, a));
    this.requestBody(where, resolve(this.before, b['requestBody']), resolve(this.after, a['requestBody']));
    const responsesA = objectAt(a, 'responses');
    for (const [status, responseB] of Object.entries(objectAt(b, 'responses'))) {
      if (status in responsesA) this.content(`${where} response ${status}`, resolve(this.before, responseB), resolve(this.after, responsesA[status]), 'response');
      else if (/^[23]/.test(status)) this.report(where, `response ${status} is gone`);
    }
  }

  private parametersOf(doc: Document, item: Json, op: Json): Map<string, Json> {
    const all = [...((item['parameters'] ?? []) as unknown[]), ...((op['parameters'] ?? []) as unknown[])].map((p) => resolve(doc, p));
    return new Map(all.map((p) => [`${String(p['in'])} parameter ${String(p['name'])}`, p]));
  }

  private parameters(where: string, before: Map<string, Json>, after: Map<string, Json>): void {
    for (const [key, b] of before) {
      const a = after.get(key);
      if (!a) this.report(where, `${key} is gone`);
      else {
        if (a['required'] === true && b['required'] !== true) this.report(where, `${key} became required`);
        this.schema(`${where} ${key}`, b['schema'], a['schema'], 'request');
      }
    }
    for (const [key, a] of after) if (!before.has(key) && a['required'] === true) this.report(where, `new required ${key}`);
  }

  private requestBody(where: string, b: Json, a: Json): void {
    if (a['required'] === true && b['required'] !== true) this.report(where, 'the request body became required');
    this.content(`${where} request body`, b, a, 'request');
  }

  private content(where: string, b: Json, a: Json, direction: Direction): void {
    const contentA = objectAt(a, 'content');
    for (const [mediaType, mediaB] of Object.entries(objectAt(b, 'content'))) {
      if (!isObject(contentA[mediaType])) this.report(where, `media type ${mediaType} is gone`);
      else this.schema(`${where} (${mediaType})`, objectAt(mediaB, 'schema'), objectAt(contentA[mediaType], 'schema'), direction);
    }
  }

  schema(where: string, rawB: unknown, rawA: unknown, direction: Direction): void {
    const key = `${direction} ${JSON.stringify(rawB)} ${JSON.stringify(rawA)}`;
    if (this.compared.has(key) && isObject(rawB) && '$ref' in rawB) return; // a recursive schema, already under way
    this.compared.add(key);
    const b = resolve(this.before, rawB);
    const a = resolve(this.after, rawA);
    this.types(where, b, a, direction);
    if (b['format'] !== a['format']) this.report(where, `format ${String(b['format'] ?? '(none)')} became ${String(a['format'] ?? '(none)')}`);
    this.values(where, valuesOf(b), valuesOf(a), direction);
    if (direction === 'request') this.bounds(where, b, a);
    this.unions(where, b, a, direction);
    this.properties(where, b, a, direction);
    if (isObject(b['items']) && isObject(a['items'])) this.schema(`${where}[]`, b['items'], a['items'], direction);
    if (isObject(b['additionalProperties']) && isObject(a['additionalProperties'])) {
      this.schema(`${where}{}`, b['additionalProperties'], a['additionalProperties'], direction);
    }
  }

  private types(where: string, b: Json, a: Json, direction: Direction): void {
    const [typesB, typesA] = [typesOf(b), typesOf(a)];
    const fits = direction === 'request' ? covers(typesA, typesB) : covers(typesB, typesA);
    if (!fits) this.report(where, `type ${String(typesB ?? 'any')} became ${String(typesA ?? 'any')}`);
  }

  private values(where: string, b: readonly unknown[] | undefined, a: readonly unknown[] | undefined, direction: Direction): void {
    if (direction === 'response') {
      if (b && !a) this.report(where, `no longer limited to ${listed(b)}`);
      return;
    }
    if (!a) return;
    const gone = b ? b.filter((v) => !a.some((w) => same(v, w))) : a;
    if (gone.length > 0) this.report(where, b ? `no longer accepts ${listed(gone)}` : `now limited to ${listed(a)}`);
  }

  private bounds(where: string, b: Json, a: Json): void {
    const tighter = (keyword: string, isTighter: (before: number, after: number) => boolean) => {
      const [before, after] = [b[keyword], a[keyword]];
      if (typeof after === 'number' && (typeof before !== 'number' || isTighter(before, after))) {
        this.report(where, `${keyword} ${String(before ?? '(none)')} became ${after}`);
      }
    };
    for (const keyword of UPPER_BOUNDS) tighter(keyword, (before, after) => after < before);
    for (const keyword of LOWER_BOUNDS) tighter(keyword, (before, after) => after > before);
    if (a['pattern'] !== undefined && a['pattern'] !== b['pattern']) this.report(where, `pattern ${String(b['pattern'] ?? '(none)')} became ${String(a['pattern'])}`);
  }

  private unions(where: string, b: Json, a: Json, direction: Direction): void {
    for (const keyword of UNIONS) {
      const [branchesB, branchesA] = [b[keyword], a[keyword]];
      if (branchesB === undefined && branchesA === undefined) continue;
      if (!Array.isArray(branchesB) || !Array.isArray(branchesA) || branchesB.length !== branchesA.length) {
        this.report(where, `${keyword} changed from ${Array.isArray(branchesB) ? branchesB.length : 0} to ${Array.isArray(branchesA) ? branchesA.length : 0} branches`);
      } else branchesB.forEach((branch: unknown, i) => this.schema(`${where} ${keyword}[${i}]`, branch, branchesA[i], direction));
    }
  }

  private properties(where: string, b: Json, a: Json, direction: Direction): void {
    const [propsB, propsA] = [objectAt(b, 'properties'), objectAt(a, 'properties')];
    const [requiredB, requiredA] = [new Set((b['required'] ?? []) as string[]), new Set((a['required'] ?? []) as string[])];
    for (const [name, schemaB] of Object.entries(propsB)) {
      const field = `${where}.${name}`;
      if (!(name in propsA)) {
        if (direction === 'request' || requiredB.has(name)) this.report(field, direction === 'request' ? 'the field is gone' : 'the required field is gone');
        continue;
      }
      if (direction === 'response' && requiredB.has(name) && !requiredA.has(name)) this.report(field, 'became optional');
      this.schema(field, schemaB, propsA[name], direction);
    }
    if (direction === 'request') {
      for (const name of requiredA) if (!requiredB.has(name)) this.report(`${where}.${name}`, name in propsB ? 'became required' : 'new required field');
    }
  }
}

/** Each breaking change from `previous` to `current`, as `where: what`. */
export function breakingChanges(previous: Document, current: Document): string[] {
  const comparison = new Comparison(previous, current);
  comparison.operations();
  return comparison.breaking;
}

const semver = (version: string): [number, number, number] => {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new Error(`info.version ${version} is not MAJOR.MINOR.PATCH`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
};

/** What is wrong with `current` as the next version after `previous`: a version that goes down, or breaking changes without a major bump. */
export function versioningProblems(previous: Document, current: Document): string[] {
  const [before, after] = [semver(previous.info.version), semver(current.info.version)];
  const order = after.map((n, i) => n - before[i]!).find((d) => d !== 0) ?? 0;
  if (order < 0) return [`info.version went down from ${previous.info.version} to ${current.info.version}`];
  const breaking = breakingChanges(previous, current);
  if (breaking.length === 0 || after[0] > before[0]) return [];
  return [`${breaking.length} breaking change(s) from ${previous.info.version} need a major version (info.version ${current.info.version}):`, ...breaking];
}
