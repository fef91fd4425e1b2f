import { Document, type AnyNode, type ParentNode } from 'domhandler';
import { filterChildren, findFirstTag, isElement, relinkChildren } from '../dom/dom-helpers.js';
import { eventHandlerAttribs } from '../dom/parse-html.js';
import { resolveElementUrls } from './resolve-urls.js';

/**
 * Elements removed from the `html` format. `head` goes with its title, meta, link, base and styles;
 * the page title is reported in metadata instead. `iframe` is kept on purpose: embedded videos, maps
 * and documents are often part of the content, the frame's own document is not in this HTML anyway,
 * and the risky `srcdoc` attribute is dropped by URL resolution.
 */
const REMOVED_TAGS: ReadonlySet<string> = new Set([
  'head', 'script', 'style', 'noscript', 'meta', 'link', 'template', 'title', 'base',
]);

/** Options of {@link cleanHtml}. */
export interface CleanHtmlOptions {
  /** Base for relative URLs (the page URL, or its `<base href>` resolved: see resolveBaseUrl). */
  baseUrl: string;
}

/**
 * Cleans a parsed page for the `html` format, in place: removes head, script, style, noscript, meta,
 * link, template, title, comments and inline event handlers, then makes URLs absolute and resolves
 * `srcset`. Returns the node whose children are the page content: the `<body>` when there is one,
 * else the document.
 */
export function cleanHtml(doc: Document, opts: CleanHtmlOptions): ParentNode {
  // The parser lists the attribute maps with event handlers: then no element's attributes need listing.
  // Maps of elements removed below lose theirs too, which nothing reads.
  const onAttribs = eventHandlerAttribs(doc);
  if (onAttribs !== undefined) for (const attribs of onAttribs) dropEventHandlers(attribs);
  stripNodeIterative(doc, opts.baseUrl, onAttribs === undefined);
  return findFirstTag(doc, 'body') ?? doc;
}

/** Deletes the inline event handlers (`on*` attributes) of one attribute map. */
function dropEventHandlers(attribs: Record<string, string>): void {
  // Object.keys, not for-in: attribute maps are prototype-less dictionaries, which for-in walks slowly.
  const names = Object.keys(attribs);
  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string;
    if (name.charCodeAt(0) === 111 && name.charCodeAt(1) === 110) delete attribs[name];
  }
}

function isRemoved(child: AnyNode): boolean {
  if (child.type === 'comment' || child.type === 'directive') return true;
  return isElement(child) && REMOVED_TAGS.has(child.name);
}

/**
 * One pass: drop removed tags and comments, then per element drop event handlers (when `eventHandlers`)
 * and resolve URLs.
 * Iterative: deep pages (thousands of nested inline tags) would overflow the call stack.
 */
function stripNodeIterative(root: ParentNode, baseUrl: string, eventHandlers: boolean): void {
  const stack: ParentNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as ParentNode;
    // URLs first: a lazy image reads its `<noscript>` twin, which is removed next.
    for (const child of node.children) {
      if (isElement(child) && !REMOVED_TAGS.has(child.name)) {
        // Inline event handlers are script too; dropping them keeps the cleaned HTML inert.
        if (eventHandlers) dropEventHandlers(child.attribs);
        resolveElementUrls(child, baseUrl);
      }
    }
    filterChildren(node, isRemoved);
    for (const child of node.children) if (isElement(child)) stack.push(child);
  }
}

/** Wraps the children of `parent` in a fresh Document (moving them), for serialization or markdown. */
export function toFragment(parent: ParentNode): Document {
  if (parent instanceof Document) return parent;
  const doc = new Document(parent.children);
  parent.children = [];
  relinkChildren(doc);
  return doc;
}
