import type { AnyNode } from 'domhandler';
import { absoluteUrl, documentBaseUrl, forEachElement } from './dom-walk.js';

/**
 * Links of a page, as Firecrawl's `links` format returns them: the `href` of every `<a>` and `<area>`,
 * resolved against the document's `<base href>` (itself resolved against `baseUrl`), in document order,
 * deduplicated. Kept: `http:`/`https:` URLs (fragment kept as written) and `mailto:` links (Firecrawl
 * returns those too). Dropped: fragment-only links (`#top`), `javascript:`, `tel:`, `data:` and any other
 * scheme, and hrefs that do not parse.
 *
 * @param baseUrl final URL of the page.
 */
export function extractLinks(doc: AnyNode, baseUrl: string): string[] {
  const base = documentBaseUrl(doc, baseUrl);
  const seen = new Set<string>();
  forEachElement(doc, (el) => {
    if (el.name !== 'a' && el.name !== 'area') return;
    const href = el.attribs.href?.trim();
    if (href === undefined || href === '' || href.startsWith('#')) return;
    const url = absoluteUrl(href, base);
    if (url === null) return;
    if (url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:') seen.add(url.href);
  });
  return [...seen];
}
