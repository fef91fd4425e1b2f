import type { AnyNode } from 'domhandler';
import { isElement } from '../dom/dom-helpers.js';

/** What replaces a `data:` image URL; the alt text stays on the element. */
export const BASE64_IMAGE_PLACEHOLDER = '<Base64-Image-Removed>';

/**
 * Replaces inline `data:` image URLs (img/source `src` and `srcset`) with
 * {@link BASE64_IMAGE_PLACEHOLDER}, keeping `alt`. Applied before markdown generation only: the spec's
 * `removeBase64Images` does not affect the `html` and `rawHtml` formats. Mutates in place.
 */
export function removeBase64Images(root: AnyNode): void {
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (!('children' in node)) continue;
    if (isElement(node) && (node.name === 'img' || node.name === 'source')) {
      for (const name of ['src', 'srcset']) {
        const v = node.attribs[name];
        if (v !== undefined && /^\s*data:/i.test(v)) node.attribs[name] = BASE64_IMAGE_PLACEHOLDER;
      }
    }
    for (const child of node.children) stack.push(child);
  }
}
