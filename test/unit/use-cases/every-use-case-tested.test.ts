import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const USE_CASES = join(ROOT, 'src/application/use-cases');
const UNIT_TESTS = join(ROOT, 'test/unit');

/** Every class exported from a file of src/application/use-cases, by name. */
function useCaseClasses(): string[] {
  return readdirSync(USE_CASES).filter((f) => f.endsWith('.ts')).flatMap((file) =>
    [...readFileSync(join(USE_CASES, file), 'utf8').matchAll(/^export (?:abstract )?class (\w+)/gm)].map((m) => m[1]!));
}

/** The title of every `describe(...)` (and `describe.each(...)(...)`) in the unit tests, with its file. */
function describeTitles(): Array<{ file: string; title: string }> {
  const files = (readdirSync(UNIT_TESTS, { recursive: true }) as string[]).filter((f) => f.endsWith('.test.ts'));
  return files.flatMap((file) =>
    [...readFileSync(join(UNIT_TESTS, file), 'utf8').matchAll(/\bdescribe(?:\.each\([^)]*\))?\(\s*(['"`])((?:(?!\1)[^\\]|\\.)*)\1/g)]
      .map((m) => ({ file, title: m[2]! })));
}

describe('every exported use case class has a unit test of its own', () => {
  it('finds the use cases and the describe titles it checks (the check itself reads something)', () => {
    expect(useCaseClasses()).toEqual(expect.arrayContaining(['UnlockUser', 'SyncKoboLibrary', 'GetKoboCover', 'CreateKoboDevice']));
    expect(describeTitles()).toEqual(expect.arrayContaining([{ file: 'use-cases/unlock-user.test.ts', title: 'UnlockUser' }]));
  });

  it('names each one in the title of a describe block under test/unit', () => {
    const titles = describeTitles();
    const untested = useCaseClasses().filter((name) => !titles.some(({ title }) => new RegExp(`\\b${name}\\b`).test(title)));
    expect(untested, 'use case classes no unit test names in a describe title').toEqual([]);
  });
});
