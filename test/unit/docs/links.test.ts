import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors, relativeLinks, slug } from './markdown-links.js';

/**
 * Every relative link in README.md and docs/ lands: the file (or folder) exists, and a `#fragment` on
 * a Markdown file names a heading there (as GitHub makes heading anchors). Reads the .md files only.
 */

const ROOT = resolve(import.meta.dirname, '../../..');

function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const FILES = [join(ROOT, 'README.md'), ...markdownUnder(join(ROOT, 'docs'))];
const anchorsOf = new Map<string, Set<string>>();
const anchorsIn = (file: string) => {
  if (!anchorsOf.has(file)) anchorsOf.set(file, anchors(readFileSync(file, 'utf8')));
  return anchorsOf.get(file)!;
};

/** Why `target`, linked from `file`, does not land; null when it does. */
function brokenBecause(file: string, target: string): string | null {
  const hash = target.indexOf('#');
  const path = hash === -1 ? target : target.slice(0, hash);
  const fragment = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
  const destination = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
  if (!existsSync(destination)) return 'no such file';
  if (fragment === null || extname(destination) !== '.md') return null;
  return anchorsIn(destination).has(fragment) ? null : `no heading makes #${fragment}`;
}

describe('relative links in README.md and docs/', () => {
  it('reads the README and at least one file in docs/', () => {
    expect(FILES.length).toBeGreaterThan(1);
  });

  it('every one resolves to a file, and every #fragment to a heading of that file', () => {
    const broken = FILES.flatMap((file) => relativeLinks(readFileSync(file, 'utf8')).flatMap(({ line, target }) => {
      const why = brokenBecause(file, target);
      return why === null ? [] : [`${relative(ROOT, file)}:${line} ${target}: ${why}`];
    }));
    expect(broken).toEqual([]);
  });
});

describe('the link reader', () => {
  it('makes heading anchors as GitHub does', () => {
    expect(slug('Every core (`WORKERS`)')).toBe('every-core-workers');
    expect(slug('Node.js versions')).toBe('nodejs-versions');
    expect(slug('The routes under `{url}` = `/kobo/{secret}`')).toBe('the-routes-under-url--kobosecret');
    expect(slug('A typed client from /openapi.json')).toBe('a-typed-client-from-openapijson');
    expect(slug('UP-01 on Node 24: dead Buffers, not buffering (2026-11-24)')).toBe('up-01-on-node-24-dead-buffers-not-buffering-2026-11-24');
    expect(slug('Command line (`stacks`)')).toBe('command-line-stacks');
    expect(slug('Straße [link](x.md) _snake_case_')).toBe('straße-link-snake_case');
    expect([...anchors('# A\n## A\n```\n# not a heading\n```\n## A')]).toEqual(['a', 'a-1', 'a-2']);
  });

  it('finds relative links outside code only, and skips absolute ones', () => {
    const md = [
      'See [a](docs/a.md#x), [b](<b c.md> "title") and [web](https://example.com), `[code](no.md)`.',
      '```', '[fenced](no.md)', '```',
      '[ref]: ./ref.md', '<a href="#top">top</a> [mail](mailto:a@b.c)',
    ].join('\n');
    expect(relativeLinks(md).map((l) => `${l.line}:${l.target}`)).toEqual(['1:docs/a.md#x', '1:b c.md', '5:./ref.md', '6:#top']);
  });

  it('tells a missing file and a missing heading apart', () => {
    const readme = join(ROOT, 'README.md');
    expect(brokenBecause(readme, 'docs/README.md')).toBeNull();
    expect(brokenBecause(readme, 'docs/README.md#decisions')).toBeNull();
    expect(brokenBecause(readme, 'docs/nowhere.md')).toBe('no such file');
    expect(brokenBecause(readme, 'docs/README.md#nowhere')).toBe('no heading makes #nowhere');
    expect(brokenBecause(readme, '#quick-start')).toBeNull();
  });
});
