import { Element, type AnyNode, type Document, type ParentNode } from 'domhandler';
import { parse, parseFragment } from 'parse5';
import { adapter } from 'parse5-htmlparser2-tree-adapter';
import { buildDom, type CollectElements } from './build-dom.js';
import { isElement, relinkChildren } from './dom-helpers.js';
import { buildStandardDom, TOO_DEEP } from './standard-dom.js';

export type { CollectElements } from './build-dom.js';

/** Options of {@link parseHtml}. */
export interface ParseHtmlOptions {
  /** Elements to hand back after parsing (saves the caller a walk of its own). Default: none. */
  readonly collect?: CollectElements;
}

/**
 * Parses an HTML page into a domhandler Document with the HTML standard's tree construction (parse5),
 * so malformed markup gives the tree a browser builds: implied html/head/body, content after `</body>`
 * and `</html>` moved into body, foster parenting of content misplaced in tables, the adoption agency
 * for misnested formatting, tag and attribute names lower-cased (camel-cased in SVG as the standard
 * says), entities decoded. The one parser of the package: every step works on this DOM.
 *
 * Scripting is on, as in the browser a scraper stands for: `<noscript>` holds its markup as one text
 * node (parse that text again to read it). A `<template>` element holds its content as a Document
 * fragment, its one child. Elements carry parse5's `namespace` field (the attribute namespace/prefix
 * maps `x-attribsNamespace`/`x-attribsPrefix` only where parse5 or its adapter made the element: HTML
 * attributes have none); attribute maps have no prototype (`Object.create(null)`, as the adapter makes
 * them); no source locations are recorded (`startIndex` stays null). The fast builder gives every element
 * without attributes one shared frozen empty map, except html, body, img, image and source: replace
 * `attribs` (do not write into it) to add an attribute to another element that had none.
 *
 * `opts.collect` hands back chosen elements in document order.
 *
 * Two builders, one tree: the fast one-pass builder of standard-dom.ts builds the standard's tree for
 * the markup nearly all pages are made of (99% of the corpus pages, 1019 of the 1573 html5lib document
 * inputs) and stops where its rules end (foster parenting, MathML, framesets, NUL characters, markup
 * cut off by the end of the input ...); parse5 (about ten times slower) builds the tree then. Both are
 * checked node for node against parse5 (parse-html-differential.test.ts, parse-html-corpus.int.test.ts).
 *
 * The standard's algorithm checks element scopes by walking the stack of open elements, so its cost
 * grows with the square of the nesting depth (20,000 nested divs: about 30 s in parse5). A page nested
 * deeper than {@link MAX_STANDARD_DEPTH} open elements (counted by the fast builder, or by a linear scan
 * of its tags before parse5) is parsed by the linear htmlparser2-like builder instead (buildDom, with
 * head content moved to body).
 */
export function parseHtml(html: string, opts: ParseHtmlOptions = {}): Document {
  const fast = buildStandardDom(html, MAX_STANDARD_DEPTH, opts.collect);
  let doc = fast.doc;
  if (doc !== null && fast.onAttribs !== undefined) {
    (doc as Document & { [ON_ATTRIBS]?: readonly Record<string, string>[] })[ON_ATTRIBS] = fast.onAttribs;
  }
  if (doc === null) {
    if (fast.unsupported === TOO_DEEP || nestingDepth(html) > MAX_STANDARD_DEPTH) {
      doc = buildDom(html, opts);
      moveContentOutOfHead(doc);
      return doc;
    }
    doc = parse(html, { treeAdapter: adapter, scriptingEnabled: true });
  }
  if (opts.collect) {
    if (fast.collected !== undefined) for (const el of fast.collected) opts.collect.into.push(el);
    else collectElements(doc, opts.collect);
  }
  return doc;
}

const ON_ATTRIBS = Symbol('onAttribs');

/**
 * The attribute maps with an inline event handler (`on*`) that the fast builder made for `doc`, or
 * undefined when another builder made it (then list the attributes of every element). A superset of the
 * tree's maps as parsed (maps of dropped tags are in it too); valid while no `on*` attribute is added
 * to the tree, which no step of the pipeline does.
 */
export function eventHandlerAttribs(doc: Document): readonly Record<string, string>[] | undefined {
  return (doc as Document & { [ON_ATTRIBS]?: readonly Record<string, string>[] })[ON_ATTRIBS];
}

/** Nesting depth above which parseHtml falls back to the linear builder (browsers cap at 512 levels). */
export const MAX_STANDARD_DEPTH = 2000;

const VOID: ReadonlySet<string> = new Set([
  'area', 'base', 'basefont', 'bgsound', 'br', 'col', 'embed', 'frame', 'hr', 'img', 'input', 'keygen', 'link', 'meta',
  'param', 'source', 'track', 'wbr',
]);
/** Elements closed implicitly by their next sibling (unclosed ones do not nest): not counted. */
const SELF_CLOSING_SIBLINGS: ReadonlySet<string> = new Set([
  'p', 'li', 'dt', 'dd', 'td', 'th', 'tr', 'option', 'optgroup', 'rb', 'rt', 'rp', 'tbody', 'thead', 'tfoot', 'colgroup',
  'caption', 'html', 'head', 'body',
]);
const TAG = /<(\/?)([a-zA-Z][^\s/>]*)/g;

/** Highest count of start tags (not void) minus end tags met while scanning: an upper bound of the nesting. */
function nestingDepth(html: string): number {
  let depth = 0;
  let max = 0;
  TAG.lastIndex = 0;
  for (let m = TAG.exec(html); m !== null; m = TAG.exec(html)) {
    const name = (m[2] as string).toLowerCase();
    if (VOID.has(name) || SELF_CLOSING_SIBLINGS.has(name)) continue;
    if (m[1] === '/') {
      if (depth > 0) depth--;
    } else {
      depth++;
      if (depth > max) max = depth;
    }
  }
  return max;
}

/** Elements that may stay in `<head>`; any other element starts the body, as in browsers. */
const HEAD_TAGS: ReadonlySet<string> = new Set([
  'title', 'meta', 'link', 'style', 'script', 'base', 'noscript', 'template',
]);

/**
 * htmlparser2 keeps everything after `<head>` inside it until `</head>`, so a page that omits
 * `</head><body>` (both optional in HTML) had its whole content in head, which every step skips.
 * Browsers close head at the first element that cannot be in it: move that element and all that
 * follows it to the start of body (created when missing).
 */
function moveContentOutOfHead(doc: Document): void {
  const html = childTag(doc, 'html');
  const parent: ParentNode = html ?? doc;
  const head = childTag(parent, 'head');
  if (!head) return;
  const first = head.children.findIndex((c) => isElement(c) && !HEAD_TAGS.has(c.name));
  if (first < 0) return;
  const moved = head.children.splice(first);
  relinkChildren(head);
  let body = childTag(parent, 'body');
  if (!body) {
    body = new Element('body', {});
    parent.children.splice(parent.children.indexOf(head) + 1, 0, body);
    relinkChildren(parent);
  }
  body.children = [...moved, ...body.children] as AnyNode[] as typeof body.children;
  relinkChildren(body);
}

function childTag(parent: ParentNode, name: string): Element | undefined {
  return parent.children.find((c): c is Element => isElement(c) && c.name === name);
}


/**
 * Parses an HTML fragment as the content of a `<body>` (the standard's fragment parsing): no html, head
 * or body elements are implied. Returns the fragment as a Document.
 */
export function parseHtmlFragment(html: string): Document {
  return parseFragment(html, { treeAdapter: adapter, scriptingEnabled: true });
}

/** Pushes the wanted elements below `root` into `c.into`, in document order (iterative pre-order walk). */
function collectElements(root: ParentNode, c: CollectElements): void {
  const stack: ParentNode[] = [root];
  const index: number[] = [0];
  while (stack.length > 0) {
    const top = stack.length - 1;
    const parent = stack[top] as ParentNode;
    const i = index[top] as number;
    if (i >= parent.children.length) {
      stack.pop();
      index.pop();
      continue;
    }
    index[top] = i + 1;
    const node = parent.children[i];
    if (node === undefined || !isElement(node)) continue;
    const el: Element = node;
    if (c.names.has(el.name)) c.into.push(el);
    if (el.children.length > 0 && !c.skipInside.has(el.name)) {
      stack.push(el);
      index.push(0);
    }
  }
}
