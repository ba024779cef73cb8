import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { breakingChanges, versioningProblems } from '../support/openapi-compat.js';
import { PREVIOUS_DOCUMENT_PATH, REFRESH_PREVIOUS, servedOpenApi } from '../support/served-openapi.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- the mutations below edit plain JSON */
type Doc = any;

const previous: Doc = JSON.parse(readFileSync(PREVIOUS_DOCUMENT_PATH, 'utf8'));
const schemas = (doc: Doc) => doc.components.schemas;
const withVersion = (doc: Doc, version: string) => ({ ...doc, info: { ...doc.info, version } });
/** The previous document, changed by `edit`. */
const changed = (edit: (doc: Doc) => void): Doc => {
  const doc = structuredClone(previous);
  edit(doc);
  return doc;
};

describe('the served /openapi.json against test/openapi/previous.json', () => {
  it('has no breaking change unless info.version has a higher major, and never a lower version', async () => {
    const served = await servedOpenApi();
    expect(versioningProblems(previous, served), `bump API_VERSION (src/adapters/http/openapi.ts); once merged, the lead refreshes the baseline: ${REFRESH_PREVIOUS}`).toEqual([]);
  });
});

describe('what the comparison calls breaking', () => {
  it.each<[string, (doc: Doc) => void, RegExp]>([
    ['an operation is gone', (d) => delete d.paths['/api/books/{id}'].delete, /^DELETE \/api\/books\/\{id\}: the operation is gone$/],
    ['a path is renamed', (d) => { d.paths['/api/book/{id}'] = d.paths['/api/books/{id}']; delete d.paths['/api/books/{id}']; }, /^GET \/api\/books\/\{id\}: the operation is gone$/],
    ['an operationId is renamed', (d) => { d.paths['/api/books'].get.operationId = 'findBooks'; }, /^GET \/api\/books: operationId listBooks became findBooks$/],
    ['a public operation needs credentials', (d) => { d.paths['/api/auth/config'].get.security = [{ bearerAuth: [] }]; }, /^GET \/api\/auth\/config: was public, now needs credentials$/],
    ['a required response field is gone', (d) => {
      delete schemas(d).Book.properties.sha256;
      schemas(d).Book.required = schemas(d).Book.required.filter((f: string) => f !== 'sha256');
    }, /response 200 \(application\/json\)\.items\[\]\.sha256: the required field is gone$/],
    ['a required response field becomes optional', (d) => {
      schemas(d).ReadingProgress.required = schemas(d).ReadingProgress.required.filter((f: string) => f !== 'status');
    }, /^GET \/api\/books\/\{id\}\/progress response 200 \(application\/json\)\.status: became optional$/],
    ['a response field changes type', (d) => { schemas(d).Book.properties.file_size.type = 'string'; }, /\.file_size: type integer became string$/],
    ['a response field may now be null', (d) => { schemas(d).Book.properties.title.type = ['string', 'null']; }, /\.title: type string became string,null$/],
    ['a response enum is dropped', (d) => { delete schemas(d).Book.properties.format.enum; }, /\.format: no longer limited to "epub", /],
    ['a new required request field', (d) => {
      schemas(d).ProgressUpdate.properties.device_name = { type: 'string' };
      schemas(d).ProgressUpdate.required.push('device_name');
    }, /^PUT \/api\/books\/\{id\}\/progress request body \(application\/json\)\.device_name: new required field$/],
    ['an optional request field becomes required', (d) => { schemas(d).ProgressUpdate.required.push('locator'); }, /request body \(application\/json\)\.locator: became required$/],
    ['a request field is gone', (d) => { delete schemas(d).ProgressUpdate.properties.device; }, /request body \(application\/json\)\.device: the field is gone$/],
    ['a request field narrows its type', (d) => { schemas(d).ProgressUpdate.properties.locator.type = 'string'; }, /\.locator: type string,null became string$/],
    ['a request field becomes an integer', (d) => { schemas(d).ProgressUpdate.properties.percentage.type = 'integer'; }, /\.percentage: type number became integer$/],
    ['an accepted enum value is gone', (d) => { schemas(d).ProgressUpdate.properties.status.enum.pop(); }, /\.status: no longer accepts "finished"$/],
    ['a request bound tightens', (d) => { schemas(d).ProgressUpdate.properties.locator.maxLength = 100; }, /\.locator: maxLength 2048 became 100$/],
    ['a request pattern appears', (d) => { schemas(d).ProgressUpdate.properties.device.pattern = '^[a-z]+$'; }, /\.device: pattern \(none\) became \^\[a-z\]\+\$$/],
    ['a format changes', (d) => { schemas(d).Book.properties.created_at.format = 'date'; }, /\.created_at: format date-time became date$/],
    ['a new required query parameter', (d) => {
      d.paths['/api/books'].get.parameters.push({ name: 'library', in: 'query', required: true, schema: { type: 'string' } });
    }, /^GET \/api\/books: new required query parameter library$/],
    ['a query parameter is gone', (d) => {
      d.paths['/api/books'].get.parameters = d.paths['/api/books'].get.parameters.filter((p: Doc) => p.name !== 'tag');
    }, /^GET \/api\/books: query parameter tag is gone$/],
    ['the error body loses its code', (d) => {
      schemas(d).Problem.required = schemas(d).Problem.required.filter((f: string) => f !== 'code');
    }, / response \d+ \(application\/problem\+json\)\.code: became optional$/],
    ['a success status is gone', (d) => { delete d.paths['/api/books/{id}/file'].get.responses['206']; }, /^GET \/api\/books\/\{id\}\/file: response 206 is gone$/],
    ['a request media type is gone', (d) => {
      const body = d.paths['/api/books'].post.requestBody;
      body.content = { 'application/octet-stream': body.content['multipart/form-data'] };
    }, /^POST \/api\/books request body: media type multipart\/form-data is gone$/],
    ['a union changes shape', (d) => {
      schemas(d).Book.properties.series_index = { anyOf: [{ type: 'number' }, { type: 'string' }] };
    }, /\.series_index: anyOf changed from 0 to 2 branches$/],
  ])('%s', (_name, edit, expected) => {
    const found = breakingChanges(previous, changed(edit));
    expect(found.filter((change) => expected.test(change)), found.join('\n')).not.toEqual([]);
    expect(versioningProblems(previous, changed(edit))[0]).toMatch(/breaking change\(s\) from .* need a major version/);
  });
});

describe('what the comparison lets through', () => {
  it.each<[string, (doc: Doc) => void]>([
    ['the same document', () => {}],
    ['a new operation', (d) => { d.paths['/api/books/{id}/related'] = { get: { operationId: 'listRelatedBooks', responses: { 200: { description: 'ok' } } } }; }],
    ['a new optional request field', (d) => { schemas(d).ProgressUpdate.properties.chapter = { type: 'string' }; }],
    ['a new required response field', (d) => { schemas(d).Book.properties.pages = { type: 'integer' }; schemas(d).Book.required.push('pages'); }],
    ['a new response enum value', (d) => { schemas(d).Book.properties.format.enum.push('djvu'); }],
    ['a new accepted request enum value', (d) => { schemas(d).ProgressUpdate.properties.status.enum.push('abandoned'); }],
    ['a request field that may now be null', (d) => { schemas(d).ProgressUpdate.properties.status.type = ['string', 'null']; }],
    ['a looser request bound', (d) => { schemas(d).ProgressUpdate.properties.locator.maxLength = 4096; }],
    ['a response field that is now always there', (d) => { schemas(d).Book.required.push('extra'); schemas(d).Book.properties.extra = { type: 'string' }; }],
    ['a new error status', (d) => { d.paths['/api/books/{id}'].get.responses['410'] = { description: 'Gone' }; }],
    ['an error status no longer given', (d) => { delete d.paths['/api/books/{id}'].get.responses['404']; }],
    ['a new optional query parameter', (d) => { d.paths['/api/books'].get.parameters.push({ name: 'lang', in: 'query', schema: { type: 'string' } }); }],
    ['new descriptions, summaries, tags, servers', (d) => {
      d.paths['/api/books'].get.summary = 'Browse books';
      d.tags[0].description = 'Other words';
      d.servers = [{ url: 'https://elsewhere.home.arpa' }];
      schemas(d).Book.properties.title.description = 'The title';
    }],
  ])('%s', (_name, edit) => {
    expect(breakingChanges(previous, changed(edit))).toEqual([]);
  });

  it('an optional response field is gone', () => {
    const withOptional = changed((d) => { schemas(d).Book.properties.extra = { type: 'string' }; });
    expect(breakingChanges(withOptional, previous)).toEqual([]);
  });
});

describe('the version rule', () => {
  const broken = changed((d) => delete d.paths['/api/books/{id}'].delete);
  const [major, minor] = previous.info.version.split('.').map(Number);

  it('lets a breaking change through with a higher major version', () => {
    expect(versioningProblems(previous, withVersion(broken, `${major + 1}.0.0`))).toEqual([]);
  });

  it('refuses it with only a minor or patch bump, naming each change', () => {
    expect(versioningProblems(previous, withVersion(broken, `${major}.${minor + 1}.0`))).toEqual([
      `1 breaking change(s) from ${previous.info.version} need a major version (info.version ${major}.${minor + 1}.0):`,
      'DELETE /api/books/{id}: the operation is gone',
    ]);
  });

  it('refuses a version lower than the previous one, and one that is not MAJOR.MINOR.PATCH', () => {
    expect(versioningProblems(withVersion(previous, `${major + 1}.0.0`), previous)).toEqual([`info.version went down from ${major + 1}.0.0 to ${previous.info.version}`]);
    expect(() => versioningProblems(previous, withVersion(previous, 'v2'))).toThrow('info.version v2 is not MAJOR.MINOR.PATCH');
  });
});
