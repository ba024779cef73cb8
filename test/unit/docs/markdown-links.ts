/**
 * The relative links of a Markdown file and the anchors its headings produce, as GitHub renders them:
 * enough to tell whether `[text](path#fragment)` lands somewhere. Fenced code and inline code hold no links.
 */

export interface Link { readonly line: number; readonly target: string }

/** The file's lines with fenced code blocks blanked (line numbers kept). */
function prose(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && marker) { fence = marker[0]!.repeat(marker.length); return ''; }
    if (fence !== null) { if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = null; return ''; }
    return line;
  });
}

const withoutInlineCode = (line: string) => line.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, (code) => ' '.repeat(code.length));

/** Every link target that is not absolute (no scheme, not protocol-relative), with its line number. */
export function relativeLinks(markdown: string): Link[] {
  const links: Link[] = [];
  prose(markdown).forEach((raw, index) => {
    const line = withoutInlineCode(raw);
    const targets = [
      ...[...line.matchAll(/\]\(\s*(?:<([^>]*)>|([^)\s]*))(?:\s+["'(][^)]*)?\)/g)].map((m) => m[1] ?? m[2]!),
      ...[...line.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((m) => m[1]!),
      ...[...line.matchAll(/<a\s[^>]*href="([^"]*)"/gi)].map((m) => m[1]!),
    ];
    for (const target of targets) {
      if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
      links.push({ line: index + 1, target });
    }
  });
  return links;
}

/** GitHub's slug of a heading's text: markup dropped, lower case, only letters, digits, `-`, `_` and spaces kept, spaces to `-`. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
    .replace(/(^|\s)_+|_+(\s|$)/g, '$1$2');
  return text.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

/** Every anchor a file offers: its headings' slugs (a repeated one gets -1, -2, ...) and explicit `id`/`name` attributes. */
export function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      found.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const m of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/gi)) found.add(m[1]!);
  }
  return found;
}
