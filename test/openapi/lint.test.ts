import { describe, expect, it } from 'vitest';
import { describeProblem, lintOpenApi, lintServedOpenApi, LINTED_ENV, type LintReport } from '../support/openapi-lint.js';
import { servedOpenApi } from '../support/served-openapi.js';

const attempts = (report: LintReport) => report.stderr.split('\n').filter((line) => line.startsWith('NETWORK ATTEMPT'));

describe('Redocly CLI lints the served /openapi.json (redocly.yaml: recommended)', () => {
  it('finds 0 errors and 0 warnings, and opens no network connection', { timeout: 120_000 }, async () => {
    const report = await lintServedOpenApi();
    expect(report.problems.map(describeProblem)).toEqual([]);
    expect(attempts(report)).toEqual([]);
  });

  it('reports what a generator trips over: a missing or repeated operationId, undeclared security, an undescribed tag, no success response', { timeout: 120_000 }, async () => {
    const document = JSON.parse(JSON.stringify(await servedOpenApi(LINTED_ENV))) as {
      paths: Record<string, Record<string, { operationId?: string; security?: unknown; responses: Record<string, unknown> }>>;
      tags: { name: string; description?: string }[];
    };
    const ops = document.paths;
    delete ops['/api/books']!.get!.operationId;
    ops['/api/books/{id}']!.get!.operationId = 'deleteBook';
    delete ops['/api/auth/login']!.post!.security;
    delete document.tags[0]!.description;
    ops['/api/auth/oidc/login']!.get!.responses = { 404: { description: 'Not found' } };
    const rules = (await lintOpenApi(document)).problems.map((p) => p.ruleId);
    expect([...new Set(rules)].sort()).toEqual([
      'operation-operationId', 'operation-operationId-unique', 'rule/operation-success-response', 'security-defined', 'tag-description',
    ]);
  });
});
