import type { AnyNode, Element } from 'domhandler';

/** Elements whose content is never page content (their descendants are not visited). */
export const OPAQUE_TAGS: ReadonlySet<string> = new Set(['script', 'style', 'template', 'svg', 'math']);

/**
 * Calls `visit` for every element under `root` in document order, skipping the inside of
 * script/style/template/svg/math. Iterative, so any nesting depth is safe.
 */
export function forEachElement(root: AnyNode, visit: (el: Element) => void): void {
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (node.type === 'tag' || node.type === 'script' || node.type === 'style') {
      visit(node);
      if (OPAQUE_TAGS.has(node.name)) continue;
    } else if (node.type !== 'root') {
      continue;
    }
    const children = node.children;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as AnyNode);
  }
}

/** Text content of an element (all descendant text nodes), whitespace collapsed and trimmed. */
export function textOf(el: Element): string {
  let out = '';
  const stack: AnyNode[] = [el];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (node.type === 'text') out += node.data;
    else if ('children' in node) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
  }
  return out.replace(/\s+/g, ' ').trim();
}

/** The first `<base href>` of a document, if any. */
export function findBaseHref(root: AnyNode): string | undefined {
  let href: string | undefined;
  forEachElement(root, (el) => {
    if (href === undefined && el.name === 'base' && el.attribs.href !== undefined && el.attribs.href.trim() !== '') {
      href = el.attribs.href.trim();
    }
  });
  return href;
}

/** `baseHref` resolved against `pageUrl` (either may be missing or invalid); null when nothing is usable. */
export function resolveBase(baseHref: string | undefined, pageUrl: string): URL | null {
  let page: URL | null;
  try {
    page = new URL(pageUrl);
  } catch {
    page = null;
  }
  if (baseHref === undefined) return page;
  try {
    return page ? new URL(baseHref, page) : new URL(baseHref);
  } catch {
    return page;
  }
}

/** The document's `<base href>` resolved against `pageUrl`, else `pageUrl`; null when neither is valid. */
export function documentBaseUrl(root: AnyNode, pageUrl: string): URL | null {
  return resolveBase(findBaseHref(root), pageUrl);
}

/** `href` resolved against `base`; null when empty or unparsable. */
export function absoluteUrl(href: string, base: URL | null): URL | null {
  const v = href.trim();
  if (v === '') return null;
  try {
    return base ? new URL(v, base) : new URL(v);
  } catch {
    return null;
  }
}
