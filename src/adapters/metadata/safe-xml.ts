import { XMLParser } from 'fast-xml-parser';
import { corrupt } from './limits.js';
import { decodeEntities } from './sanitize.js';

export interface XmlLimits {
  readonly maxXmlBytes: number;
  readonly maxXmlDepth: number;
}

/** A parsed element: attributes as `@_name`, text as `#text`, children by local name. */
export type XmlNode = Readonly<Record<string, unknown>>;

const FORBIDDEN = /<!(DOCTYPE|ENTITY)/i;

/** Decodes XML bytes by BOM or the declared encoding (UTF-8 when neither says otherwise). */
export function decodeXml(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder('utf-8').decode(bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 256)).toString('latin1');
  const declared = /^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]{1,40})["']/.exec(head)?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(declared.toLowerCase()).decode(bytes);
  } catch {
    throw corrupt(`Unsupported XML encoding ${declared}.`);
  }
}

/**
 * Refuses DTDs and entity declarations outright (UP-06), then measures element depth with a
 * linear scan so that pathological nesting is rejected before the parser ever sees it.
 */
export function checkXml(xml: string, limits: XmlLimits): void {
  if (xml.length > limits.maxXmlBytes) throw corrupt(`XML document is larger than ${limits.maxXmlBytes} bytes.`);
  if (FORBIDDEN.test(xml)) throw corrupt('XML documents with DOCTYPE or ENTITY declarations are refused.');
  let depth = 0;
  let i = 0;
  const skipTo = (needle: string, from: number) => {
    const at = xml.indexOf(needle, from);
    if (at < 0) throw corrupt('Unterminated XML markup.');
    return at + needle.length;
  };
  while ((i = xml.indexOf('<', i)) >= 0) {
    const next = xml[i + 1];
    if (next === '/') {
      depth--;
      i = skipTo('>', i);
    } else if (next === '?') {
      i = skipTo('?>', i);
    } else if (next === '!') {
      i = xml.startsWith('<!--', i) ? skipTo('-->', i) : xml.startsWith('<![CDATA[', i) ? skipTo(']]>', i) : skipTo('>', i);
    } else {
      let j = i + 1;
      let quote = '';
      for (; j < xml.length; j++) {
        const c = xml[j];
        if (quote) {
          if (c === quote) quote = '';
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '>') break;
      }
      if (j >= xml.length) throw corrupt('Unterminated XML tag.');
      if (xml[j - 1] !== '/') depth++;
      if (depth > limits.maxXmlDepth) throw corrupt(`XML nesting deeper than ${limits.maxXmlDepth}.`);
      i = j + 1;
    }
  }
}

/** Checks then parses with entity processing off; namespace prefixes are removed. */
export function parseXml(input: Uint8Array | string, limits: XmlLimits, stopNodes: readonly string[] = []): XmlNode {
  if (typeof input !== 'string' && input.length > limits.maxXmlBytes) throw corrupt(`XML document is larger than ${limits.maxXmlBytes} bytes.`);
  const xml = typeof input === 'string' ? input : decodeXml(input);
  checkXml(xml, limits);
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    processEntities: false,
    htmlEntities: false,
    parseTagValue: false,
    parseAttributeValue: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    trimValues: true,
    stopNodes: [...stopNodes],
  });
  try {
    const doc: unknown = parser.parse(xml, true);
    if (typeof doc !== 'object' || doc === null) throw new Error('no document');
    return doc as XmlNode;
  } catch (error) {
    throw corrupt(`Malformed XML: ${(error as Error).message.slice(0, 200)}`);
  }
}

/** Children with this local name, always as an array. */
export function children(node: unknown, name: string): unknown[] {
  if (typeof node !== 'object' || node === null || !Object.hasOwn(node, name)) return [];
  const value = (node as Record<string, unknown>)[name];
  return Array.isArray(value) ? value : [value];
}

export function child(node: unknown, name: string): unknown {
  return children(node, name)[0];
}

/** The entity-decoded text content of a leaf element, or null. */
export function text(node: unknown): string | null {
  const raw = rawText(node);
  return raw === null ? null : decodeEntities(raw);
}

/** Text exactly as written (for stop nodes that still hold markup). */
export function rawText(node: unknown): string | null {
  if (typeof node === 'string') return node;
  if (typeof node === 'number') return String(node);
  if (typeof node === 'object' && node !== null && Object.hasOwn(node, '#text')) {
    const t = (node as Record<string, unknown>)['#text'];
    return typeof t === 'string' || typeof t === 'number' ? String(t) : null;
  }
  return null;
}

export function attr(node: unknown, name: string): string | null {
  if (typeof node !== 'object' || node === null || !Object.hasOwn(node, `@_${name}`)) return null;
  const value = (node as Record<string, unknown>)[`@_${name}`];
  return typeof value === 'string' ? decodeEntities(value) : null;
}
