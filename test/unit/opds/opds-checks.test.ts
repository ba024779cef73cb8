import { describe, expect, it } from 'vitest';
import { basicCredentials } from '../../../src/adapters/opds/basic-auth.js';
import { acquisitionFeed, navigationFeed } from '../../../src/adapters/opds/opds-feeds.js';
import { el, xmlDocument } from '../../../src/adapters/opds/xml.js';
import { pageOf } from '../../../src/domain/page.js';
import { aBook, instant } from '../../support/builders.js';
import { checkOpdsFeed } from '../../support/opds-validator.js';

const head = { id: 'urn:stacks:test', title: 'Test', self: '/opds/test', kind: 'acquisition', twin: '/opds/v2/test' } as const;
const valid = () => acquisitionFeed(head, pageOf([aBook({ coverMediaType: 'image/jpeg' })], 1, { page: 1, pageSize: 20 }), instant(1));

describe('the OPDS feed checker used by the HTTP tests', () => {
  it('accepts what the feed writer produces, for both kinds of feed', () => {
    expect(checkOpdsFeed(valid(), 'acquisition').problems).toEqual([]);
    const nav = navigationFeed({ ...head, kind: 'navigation' }, [
      { id: 'urn:x:1', title: 'One', text: 'first', href: '/opds/one', rel: 'subsection', kind: 'navigation', updated: instant(2) },
    ], null, instant(3));
    expect(checkOpdsFeed(nav, 'navigation').problems).toEqual([]);
  });

  it('rejects malformed XML, missing required elements, bad dates, unknown elements and broken OPDS links', () => {
    const broken: Array<[string, RegExp]> = [
      [valid().replace('</feed>', ''), /not well-formed/],
      [valid().replace(/<id>urn:stacks:test<\/id>/, ''), /must have required property 'id'/],
      [valid().replace(/<updated>[^<]+<\/updated>/, '<updated>yesterday</updated>'), /must match format "date-time"/],
      [valid().replace('<title>Test</title>', '<title>Test</title><subtitle>x</subtitle>'), /must NOT have additional properties/],
      [valid().replace('rel="http://opds-spec.org/acquisition"', 'rel="related"'), /no acquisition link/],
      [valid().replace('type="image/jpeg"', 'type="text/html"'), /image link of type text\/html/],
      [valid().replace(/ rel="alternate"( href="\/opds\/books\/)/, ' rel="related"$1'), /neither content nor an alternate link/],
      [valid().replace(/<link rel="self"[^>]+\/>/, ''), /no self link/],
      [valid().replace('href="/opds/test"', 'href="/opds/a b"'), /is not a URI reference/],
    ];
    for (const [xml, problem] of broken) {
      let problems: string[];
      try {
        problems = checkOpdsFeed(xml, 'acquisition').problems;
      } catch (error) {
        problems = [(error as Error).message];
      }
      expect(problems.join('\n')).toMatch(problem);
    }
    expect(checkOpdsFeed(valid(), 'navigation').problems.join('\n')).toMatch(/self link of type .*kind=acquisition/);
  });
});

describe('the OPDS XML writer and Basic credentials', () => {
  it('escapes text and attributes and drops characters XML 1.0 forbids', () => {
    expect(xmlDocument(el('a', { t: 'x"<&>\n' }, 'a<b>&c\u0000\uFFFE'))).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<a t="x&quot;&lt;&amp;&gt;&#10;">a&lt;b&gt;&amp;c</a>\n');
  });

  it('splits at the first colon, decodes UTF-8, and refuses malformed or oversized headers', () => {
    const basic = (s: string) => `Basic ${Buffer.from(s, 'utf8').toString('base64')}`;
    expect(basicCredentials(basic('zoë:pa:ss wörd'))).toEqual({ login: 'zoë', password: 'pa:ss wörd' });
    expect(basicCredentials(basic(':password'))).toBeNull();
    expect(basicCredentials(basic('no-colon'))).toBeNull();
    expect(basicCredentials('Bearer abc')).toBeNull();
    expect(basicCredentials(undefined)).toBeNull();
    expect(basicCredentials(basic(`u:${'x'.repeat(400)}`))).toBeNull();
  });
});
