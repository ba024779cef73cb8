import { XMLValidator } from 'fast-xml-parser';
import render from 'dom-serializer';
import { DomHandler, Element, Text, type AnyNode, type ChildNode, type ParentNode } from 'domhandler';
import { Parser } from 'htmlparser2';
import { corrupt } from './limits.js';
import { isSpace, splitSentences } from './kepub-sentences.js';

/** Deepest element nesting a content document may have (the serializer recurses). */
const MAX_DEPTH = 512;
const XML_DECLARATION = /^\s*<\?xml[^>]*\?>/;
/** kepubify's style tweak (transformContentKoboStyles). */
const KOBO_STYLE = 'div#book-inner { margin-top: 0; margin-bottom: 0;}';
/** Elements whose text stays as it is (kepubify: script, style, pre, audio, video, svg, math). */
const KEPT = new Set(['script', 'style', 'pre', 'audio', 'video', 'svg', 'math']);
/** Elements that start a new koboSpan paragraph when they hold text. */
const PARAGRAPHS = new Set(['p', 'ol', 'ul', 'table', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

const localName = (el: Element): string => el.name.slice(el.name.indexOf(':') + 1).toLowerCase();

/**
 * An XHTML/HTML content document as a KEPUB content document, as kepubify makes it: a koboSpan
 * (`span.koboSpan#kobo.N.M`) around each sentence and image, the body's content inside
 * `div#book-columns > div#book-inner`, and Kobo's style tweak in the head. A well-formed XML document
 * is read as XML and written back with its text and attributes as they were (entities untouched); a
 * malformed one is read leniently as HTML. The output is always well-formed XML in UTF-8. Returns null
 * when there is nothing to change (no body).
 */
export function kepubifyContent(source: string): string | null {
  const withoutDeclaration = source.replace(XML_DECLARATION, '');
  const xml = XMLValidator.validate(withoutDeclaration) === true;
  const handler = new DepthLimitedHandler();
  new Parser(handler, {
    xmlMode: xml, decodeEntities: !xml, recognizeSelfClosing: true, lowerCaseTags: false, lowerCaseAttributeNames: false, recognizeCDATA: true,
  }).end(withoutDeclaration);
  const root = handler.root;
  checkDepth(root);
  const body = findElement(root, 'body');
  if (!body) return null;
  if (!findElement(body, '*', (el) => (el.attribs['class'] ?? '').split(/\s+/).includes('koboSpan'))) addSpans(body);
  wrapBody(body);
  const html = findElement(root, 'html');
  if (html && !html.attribs['xmlns']) html.attribs['xmlns'] = 'http://www.w3.org/1999/xhtml';
  const head = findElement(root, 'head');
  if (head) append(head, new Element('style', { type: 'text/css', class: 'kobostylehacks' }, [new Text(KOBO_STYLE)]));
  return `<?xml version="1.0" encoding="utf-8"?>\n${render(root, { xmlMode: true, decodeEntities: !xml, encodeEntities: xml ? false : 'utf8' })}`;
}

/**
 * Refuses a document as soon as its elements nest deeper than MAX_DEPTH while it is parsed: the lenient
 * HTML parser's work grows with the depth of what is open, so a document of a million unclosed
 * elements would otherwise take minutes before checkDepth saw it (outside review K2).
 */
class DepthLimitedHandler extends DomHandler {
  private depth = 0;

  override onopentag(name: string, attribs: Record<string, string>): void {
    if (++this.depth > MAX_DEPTH) throw corrupt(`A content document nests deeper than ${MAX_DEPTH}.`);
    super.onopentag(name, attribs);
  }

  override onclosetag(): void {
    this.depth -= 1;
    super.onclosetag();
  }
}

function checkDepth(root: ParentNode): void {
  const stack: Array<[AnyNode, number]> = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_DEPTH) throw corrupt(`A content document nests deeper than ${MAX_DEPTH}.`);
    if ('children' in node) for (const child of node.children) stack.push([child, depth + 1]);
  }
}

function findElement(from: ParentNode, name: string, test: (el: Element) => boolean = () => true): Element | null {
  const stack: AnyNode[] = [];
  pushReversed(stack, from.children);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node instanceof Element) {
      if ((name === '*' || localName(node) === name) && test(node)) return node;
      pushReversed(stack, node.children);
    }
  }
  return null;
}

/**
 * kepubify's transformContentKoboSpans: depth-first, in document order. The nodes that change are
 * noted as they are met (their spans numbered then) and put in place afterwards, each parent's
 * children rebuilt once: a body of 10,000 paragraphs costs 10,000 steps, not 10,000 array copies each.
 */
function addSpans(body: Element): void {
  let para = 0;
  let seg = 0;
  let nextPara = false;
  const changes = new Map<ParentNode, Map<ChildNode, ChildNode[]>>();
  const change = (node: ChildNode, nodes: ChildNode[]) => {
    const parent = node.parent!;
    let ofParent = changes.get(parent);
    if (!ofParent) changes.set(parent, (ofParent = new Map()));
    ofParent.set(node, nodes);
  };
  const span = (children: ChildNode[]): Element => {
    seg += 1;
    return new Element('span', { class: 'koboSpan', id: `kobo.${para}.${seg}` }, children);
  };
  const stack: ChildNode[] = [];
  pushReversed(stack, body.children);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node instanceof Text) {
      const parent = node.parent as Element;
      const underP = parent instanceof Element && localName(parent) === 'p';
      const sentences = splitSentences(node.data);
      // Space between elements stays the very node it was (most text nodes of a body are such).
      if (!underP && sentences.every(isSpace)) continue;
      change(node, sentences.map((sentence): ChildNode => {
        if (isSpace(sentence) && !underP) return new Text(sentence);
        if (nextPara) {
          para += 1;
          seg = 0;
          nextPara = false;
        }
        return span([new Text(sentence)]);
      }));
    } else if (node instanceof Element) {
      const name = localName(node);
      if (name === 'img') {
        para += 1;
        seg = 0;
        nextPara = false;
        change(node, [span([])]);
        continue;
      }
      if (KEPT.has(name)) continue;
      if (PARAGRAPHS.has(name)) nextPara = true;
      pushReversed(stack, node.children);
    }
  }
  for (const [parent, replaced] of changes) {
    const children: ChildNode[] = [];
    for (const child of parent.children) {
      const nodes = replaced.get(child);
      if (nodes === undefined) children.push(child);
      else if (child instanceof Element) {
        // An image goes inside its span.
        const wrapper = nodes[0] as Element;
        append(wrapper, child);
        children.push(wrapper);
      } else for (const n of nodes) children.push(n);
    }
    parent.children = children;
    relink(parent, 0, children.length);
  }
}

/** kepubify's transformContentKoboDivs: `div#book-columns > div#book-inner` around the body's content, unless there already. */
function wrapBody(body: Element): void {
  const present = body.children.some((c) => c instanceof Element && c.attribs['id'] === 'book-columns'
    && c.children.some((i) => i instanceof Element && i.attribs['id'] === 'book-inner'));
  if (present) return;
  const inner = new Element('div', { id: 'book-inner' }, body.children);
  relink(inner, 0, inner.children.length);
  body.children = [new Element('div', { id: 'book-columns' }, [inner])];
  relink(body, 0, 1);
}

/** Pushes the nodes last to first, so they pop in document order (no spread: a paragraph may hold 100,000 of them). */
function pushReversed<T>(stack: T[], nodes: readonly T[]): void {
  for (let i = nodes.length - 1; i >= 0; i--) stack.push(nodes[i]!);
}

/** Adds `node` (new, or moved from where addSpans rebuilds its parent) as the last child. */
function append(parent: ParentNode, node: ChildNode): void {
  parent.children.push(node);
  relink(parent, parent.children.length - 2, parent.children.length);
}

/** Sets the links of the children in [from, to). */
function relink(parent: ParentNode, from: number, to: number): void {
  for (let i = Math.max(0, from); i < Math.min(parent.children.length, to); i++) {
    const child = parent.children[i]!;
    child.parent = parent;
    child.prev = parent.children[i - 1] ?? null;
    child.next = parent.children[i + 1] ?? null;
  }
}
