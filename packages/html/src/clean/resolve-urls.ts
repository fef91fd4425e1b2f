import type { AnyNode, Document, Element } from 'domhandler';
import { findFirstTag, isElement } from '../dom/dom-helpers.js';
import { largestSrcsetCandidate, lazyImageSrc } from '../metadata/index.js';

/** Attributes holding one URL, per element name. */
const URL_ATTRS: ReadonlyMap<string, readonly string[]> = new Map([
  ['a', ['href']], ['area', ['href']], ['link', ['href']], ['img', ['src']], ['iframe', ['src']], ['embed', ['src']],
  ['source', ['src']], ['track', ['src']], ['audio', ['src']], ['video', ['src', 'poster']], ['script', ['src']],
  ['form', ['action']], ['input', ['src']], ['object', ['data']], ['blockquote', ['cite']], ['q', ['cite']],
  ['ins', ['cite']], ['del', ['cite']],
]);


/**
 * The base URL for relative links of a document: its first `<base href>` resolved against the page
 * URL, else the page URL. Returns `pageUrl` unchanged when it is not a valid absolute URL.
 */
export function resolveBaseUrl(doc: Document, pageUrl: string): string {
  // <base> belongs in <head>; looking only there spares a walk over the whole page.
  const html = doc.children.find((c): c is Element => isElement(c) && c.name === 'html');
  const head = (html ?? doc).children.find((c): c is Element => isElement(c) && c.name === 'head');
  const base = findFirstTag(head ?? doc, 'base');
  const href = base?.attribs['href']?.trim();
  if (!href) return pageUrl;
  return absolutize(href, pageUrl) ?? pageUrl;
}

/** `value` resolved against `base`, or null when it cannot be parsed (the caller keeps the original). */
export function absolutize(value: string, base: string): string | null {
  const v = value.trim();
  if (v === '' || /^(?:data|javascript|mailto|tel|about|blob):/i.test(v)) return null;
  // Already absolute: keep as written (no need to pay for a URL parse on most links of a page).
  if (/^https?:\/\/[^\s]+$/i.test(v)) return v;
  const fast = joinPlainPath(v, base);
  if (fast !== null) return fast;
  try {
    return new URL(v, base).href;
  } catch {
    return null;
  }
}

/**
 * A relative URL made only of characters that the URL parser copies as they are (no scheme, no
 * dot segments, no percent-encoded dot, no backslash, space or non-ASCII): `/a/b?c#d` or `a/b`.
 */
const PLAIN_PATH = /^(?!\/\/)[A-Za-z0-9\-._~!$&()*+,;=@%/]+(?:\?[A-Za-z0-9\-._~!$&()*+,;=@%/?]*)?(?:#[A-Za-z0-9\-._~!$&()*+,;=@%/?#]*)?$/;
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:[/?#]|$)|%2e/i;

interface BaseParts {
  base: string;
  /** `scheme://host[:port]`, or null when the base is not a plain http(s) URL. */
  origin: string | null;
  /** Origin and directory of the base path (up to its last `/`). */
  dir: string;
}

/** Parts of the last base seen: the pages of a batch share one base. */
let lastBase: BaseParts = { base: '', origin: null, dir: '' };

function baseParts(base: string): BaseParts {
  if (lastBase.base === base) return lastBase;
  let origin: string | null = null;
  let dir = '';
  try {
    const u = new URL(base);
    if ((u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.password === '') {
      origin = `${u.protocol}//${u.host}`;
      dir = origin + u.pathname.slice(0, u.pathname.lastIndexOf('/') + 1);
    }
  } catch {
    origin = null;
  }
  lastBase = { base, origin, dir };
  return lastBase;
}

/**
 * `new URL(v, base).href` without the URL parser for the common relative links (`/path`, `path`)
 * whose characters the parser copies unchanged; null when `v` needs the real parser. Resolving URLs
 * with the parser was a tenth of the cleaning time.
 */
function joinPlainPath(v: string, base: string): string | null {
  const first = v.charCodeAt(0);
  // '?' and '#' keep parts of the base path and query: left to the parser.
  if (first === 63 || first === 35 || !PLAIN_PATH.test(v) || DOT_SEGMENT.test(v)) return null;
  const parts = baseParts(base);
  if (parts.origin === null) return null;
  // A first path segment with ':' would be a scheme: ':' is not in PLAIN_PATH.
  return first === 47 ? parts.origin + v : parts.dir + v;
}

function resolveImage(el: Element, base: string): void {
  const attrs = el.attribs;
  const lazy = el.name === 'img' ? lazyImageSrc(el) : undefined;
  if (lazy !== undefined) attrs['src'] = lazy;
  const srcset = attrs['srcset'] ?? attrs['data-srcset'];
  if (srcset) {
    const largest = largestSrcsetCandidate(srcset);
    if (largest !== undefined && !largest.startsWith('data:')) {
      if (el.name === 'img') attrs['src'] = largest;
      else attrs['srcset'] = absolutize(largest, base) ?? largest;
    }
    if (el.name === 'img') {
      delete attrs['srcset'];
      delete attrs['sizes'];
    }
    delete attrs['data-srcset'];
  }
}

/**
 * Makes every URL-valued attribute of the subtree absolute against `baseUrl` (href, src, poster,
 * action, cite, data), resolves responsive images (`srcset` -> largest candidate in `src`, lazy-load
 * `data-src` when `src` is a placeholder) and drops `srcdoc`. Mutates the tree in place.
 */
export function resolveUrls(root: AnyNode, baseUrl: string): void {
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!('children' in node)) continue;
    if (isElement(node)) resolveElementUrls(node, baseUrl);
    for (const child of node.children) stack.push(child);
  }
}

/** {@link resolveUrls} for one element (not its descendants). */
export function resolveElementUrls(el: Element, baseUrl: string): void {
  if (el.name === 'img' || el.name === 'source') resolveImage(el, baseUrl);
  const attrs = URL_ATTRS.get(el.name);
  if (attrs) {
    for (const name of attrs) {
      const v = el.attribs[name];
      if (v === undefined) continue;
      const abs = absolutize(v, baseUrl);
      if (abs !== null) el.attribs[name] = abs;
    }
  }
  if (el.name === 'iframe') delete el.attribs['srcdoc'];
}
