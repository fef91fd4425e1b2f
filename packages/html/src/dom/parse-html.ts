import { Element, type AnyNode, type Document, type ParentNode } from 'domhandler';
import { buildDom, type BuildDomOptions } from './build-dom.js';
import { isElement, relinkChildren } from './dom-helpers.js';

/** Elements that may stay in `<head>`; any other element starts the body, as in browsers. */
const HEAD_TAGS: ReadonlySet<string> = new Set([
  'title', 'meta', 'link', 'style', 'script', 'base', 'noscript', 'template',
]);

/**
 * Parses an HTML page into a domhandler Document (the tree htmlparser2 builds, see buildDom: entities
 * decoded, tag and attribute names lower-cased). The one parser of the package: every step works on
 * this DOM. `opts.collect` hands back chosen elements found while parsing.
 */
export function parseHtml(html: string, opts: BuildDomOptions = {}): Document {
  const doc = buildDom(html, opts);
  moveContentOutOfHead(doc);
  return doc;
}

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
