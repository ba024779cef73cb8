import { attr, child, children, rawText, text, type XmlNode } from './safe-xml.js';
import { dateInstant, htmlToText, splitAuthors, type RawMetadata } from './sanitize.js';

/** What a package document says: its metadata and the manifest href of its cover image. */
export interface OpfReading {
  readonly metadata: RawMetadata;
  readonly coverHref: string | null;
}

/**
 * Reads a package document the way calibre does (calibre/ebooks/metadata/opf.py): version 3 and later
 * with the EPUB 3 rules (refinements, `belongs-to-collection`, `cover-image`), earlier versions with
 * the EPUB 2 rules only, so EPUB 3 markup left in an EPUB 2 file (or the reverse) does not win over
 * what the file's own version says.
 */
export function readOpf(pkg: XmlNode, md: XmlNode): OpfReading {
  const epub3 = Number(/^\s*(\d+)/.exec(attr(pkg, 'version') ?? '')?.[1] ?? 2) >= 3;
  const opf = new Opf(pkg, md);
  const common = {
    language: firstLanguage(md),
    publisher: text(child(md, 'publisher')),
    tags: children(md, 'subject').map(text),
    description: description(md),
  };
  return epub3
    ? { metadata: { ...common, ...opf.epub3() }, coverHref: opf.epub3Cover() ?? opf.namedCover() }
    : { metadata: { ...common, ...opf.epub2() }, coverHref: opf.namedCover() };
}

const nonEmpty = (node: unknown): boolean => (text(node) ?? '').trim() !== '';
const isMarkup = (mediaType: string | null) => !mediaType || mediaType.includes('xml') || mediaType.includes('html');

class Opf {
  private readonly metas: unknown[];
  private readonly items: unknown[];

  constructor(pkg: XmlNode, private readonly md: XmlNode) {
    this.metas = children(md, 'meta');
    this.items = children(child(pkg, 'manifest'), 'item');
  }

  /** opf2.py: first title; creators whose role is `aut` or absent, split as names; the earliest date. */
  epub2(): RawMetadata {
    const creators = children(this.md, 'creator');
    const roled = creators.filter((c) => [null, 'aut'].includes(attr(c, 'role')));
    const authors = roled.length > 0 ? roled : creators.filter((c) => attr(c, 'role') === 'edt');
    const dates = children(this.md, 'date').map((d) => text(d)).filter((d): d is string => d !== null && dateInstant(d) !== null);
    const earliest = dates.reduce<string | null>((min, d) => (min === null || dateInstant(d)! < dateInstant(min)! ? d : min), null);
    return {
      title: text(children(this.md, 'title').find(nonEmpty)),
      authors: authors.flatMap((c) => splitAuthors(text(c))),
      isbn: epub2Isbn(children(this.md, 'identifier')),
      published: earliest,
      series: this.named('calibre:series'),
      seriesIndex: this.named('calibre:series_index'),
    };
  }

  /** opf3.py: main title and subtitle, creators by refined role, identifiers by scheme, first date, collections. */
  epub3(): RawMetadata {
    const titles = children(this.md, 'title').filter(nonEmpty);
    const main = titles.find((t) => this.refined(t, 'title-type')[0] === 'main') ?? titles[0];
    const subtitle = titles.find((t) => /sub-?title/.test(this.refined(t, 'title-type')[0] ?? ''));
    const collection = this.metas.find((m) => attr(m, 'property') === 'belongs-to-collection' && attr(m, 'id') && nonEmpty(m)
      && this.refined(m, 'collection-type')[0] === 'series');
    const firstNumber = (values: (string | null | undefined)[]) => values.find((v) => v != null && Number.isFinite(Number.parseFloat(v)));
    return {
      title: main ? [text(main), subtitle && subtitle !== main ? text(subtitle) : null].filter(Boolean).join(': ') : null,
      authors: this.epub3Authors(),
      isbn: children(this.md, 'identifier').map(epub3Isbn),
      published: children(this.md, 'date').map((d) => text(d)).find((d) => d !== null && dateInstant(d) !== null) ?? null,
      series: collection ? text(collection) : this.named('calibre:series'),
      seriesIndex: collection
        ? this.refined(collection, 'group-position')[0]
        : firstNumber(this.metas.filter((m) => attr(m, 'name') === 'calibre:series_index').map((m) => attr(m, 'content'))),
    };
  }

  private epub3Authors(): string[] {
    const roled: unknown[] = [];
    const unroled: unknown[] = [];
    const editors: unknown[] = [];
    for (const creator of children(this.md, 'creator').filter(nonEmpty)) {
      const roles = this.refinedRoles(creator);
      if (roles.length > 0) {
        if (roles.includes('aut')) roled.push(creator);
        if (roles.includes('edt')) editors.push(creator);
      } else if (attr(creator, 'role') !== null) {
        if (attr(creator, 'role')!.toLowerCase() === 'aut') roled.push(creator);
      } else unroled.push(creator);
    }
    const chosen = roled.length > 0 ? roled : unroled.length > 0 ? unroled : editors;
    const seq = (c: unknown) => Number.parseInt(this.refined(c, 'display-seq')[0] ?? '0', 10) || 0;
    return [...chosen].sort((a, b) => seq(a) - seq(b)).map((c) => text(c)!.trim());
  }

  /** EPUB 3 cover-image item (an image, not a page). */
  epub3Cover(): string | null {
    const item = this.items.find((i) => (attr(i, 'properties') ?? '').toLowerCase().split(/\s+/).includes('cover-image') && !isMarkup(attr(i, 'media-type')));
    return item ? attr(item, 'href') : null;
  }

  /** `<meta name="cover">`: the manifest item with that id, or (EPUB 2 only in calibre, harmless in 3) that href. */
  namedCover(): string | null {
    const id = attr(this.metas.find((m) => /cover/i.test(attr(m, 'name') ?? '') && attr(m, 'content')), 'content');
    if (!id) return null;
    const image = (i: unknown) => !isMarkup(attr(i, 'media-type'));
    const item = this.items.find((i) => attr(i, 'id') === id && image(i)) ?? this.items.find((i) => attr(i, 'href') === id && image(i));
    return item ? attr(item, 'href') : null;
  }

  private named(name: string): string | null {
    return attr(this.metas.find((m) => attr(m, 'name')?.toLowerCase() === name), 'content');
  }

  /** Values of `<meta refines="#id" property="...">` for an element. */
  private refined(node: unknown, property: string): string[] {
    const id = attr(node, 'id');
    if (!id) return [];
    return this.metas.filter((m) => attr(m, 'refines') === `#${id}` && attr(m, 'property') === property)
      .map((m) => (text(m) ?? '').trim()).filter((v) => v !== '');
  }

  /** MARC relator roles of a creator (a `scheme` other than marc:relators does not count). */
  private refinedRoles(node: unknown): string[] {
    const id = attr(node, 'id');
    if (!id) return [];
    return this.metas
      .filter((m) => attr(m, 'refines') === `#${id}` && attr(m, 'property') === 'role' && [null, 'marc:relators'].includes(attr(m, 'scheme')))
      .map((m) => (text(m) ?? '').trim().toLowerCase());
  }
}

/** opf2.py get_identifiers: the last `isbn`-schemed or `urn:isbn:` identifier, else the first bare ISBN-shaped one. */
function epub2Isbn(identifiers: unknown[]): string[] {
  let schemed: string | null = null;
  let variant: string | null = null;
  const bare: string[] = [];
  for (const identifier of identifiers) {
    const value = (text(identifier) ?? '').trim();
    if (!value) continue;
    const scheme = attr(identifier, 'scheme')?.toLowerCase() ?? null;
    if (scheme === 'isbn') schemed = value.replace(/^urn:isbn:/i, '');
    else if (scheme !== null && /^isbn-?1[03]$/.test(scheme)) variant ??= value;
    else if (scheme === null && /^urn:isbn:/i.test(value)) schemed = value;
    else if (scheme === null) bare.push(value);
  }
  // calibre files an `ISBN-13` scheme under that name, not as the ISBN; Stacks reads it as the ISBN.
  return [schemed, variant, ...bare].filter((v): v is string => v !== null);
}

/** opf3.py parse_identifier: `opf:scheme`, else the `urn:scheme:` or `scheme:` prefix of the value. */
function epub3Isbn(identifier: unknown): string | null {
  const value = (text(identifier) ?? '').trim();
  const scheme = attr(identifier, 'scheme');
  if (!value) return null;
  if (scheme && !value.toLowerCase().startsWith('urn:')) return scheme.toLowerCase().startsWith('isbn') ? value.split(':').pop()! : null;
  const [prefix, ...rest] = value.replace(/^urn:/i, '').split(':');
  return rest.length > 0 && prefix!.toLowerCase().startsWith('isbn') ? rest.at(-1)! : null;
}

/** The first language that says something (`und` is "undetermined"). */
function firstLanguage(md: XmlNode): string | null {
  return children(md, 'language').map((l) => (text(l) ?? '').trim()).find((l) => l !== '' && l.toLowerCase() !== 'und') ?? null;
}

function description(md: XmlNode): string | null {
  const raw = rawText(child(md, 'description'));
  return raw === null ? null : htmlToText(raw);
}
