/** A tiny XML writer: elements and text only, every value escaped, characters XML 1.0 forbids dropped. */
export interface XmlElement {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string | number | null | undefined>>;
  readonly children: readonly XmlChild[];
}

export type XmlChild = XmlElement | string | number | null | undefined | false;

// Characters outside XML 1.0's Char production (C0 controls but tab/LF/CR, surrogates, U+FFFE/U+FFFF).
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function el(name: string, attrs: XmlElement['attrs'] = {}, ...children: XmlChild[]): XmlElement {
  return { name, attrs, children };
}

export function escapeText(value: string): string {
  return value.replace(NOT_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function escapeAttribute(value: string): string {
  return escapeText(value).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

function write(node: XmlChild): string {
  if (node === null || node === undefined || node === false) return '';
  if (typeof node === 'string' || typeof node === 'number') return escapeText(String(node));
  const attrs = Object.entries(node.attrs)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => ` ${k}="${escapeAttribute(String(v))}"`)
    .join('');
  const inner = node.children.map(write).join('');
  return inner === '' ? `<${node.name}${attrs}/>` : `<${node.name}${attrs}>${inner}</${node.name}>`;
}

/** The document with its XML declaration. */
export function xmlDocument(root: XmlElement): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${write(root)}\n`;
}
