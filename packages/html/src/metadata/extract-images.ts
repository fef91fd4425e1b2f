import type { AnyNode } from 'domhandler';
import { absoluteUrl, documentBaseUrl, forEachElement } from './dom-walk.js';
import { isPlaceholderSrc, lazyImageSrc } from './lazy-image.js';
import { largestSrcsetCandidate } from './srcset.js';

const META_IMAGES = new Set(['og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src']);

/**
 * Image URLs of a page, absolute (against `<base href>` / `baseUrl`), http(s) only (so `data:` and `blob:`
 * URLs are excluded), deduplicated, in document order. Sources: `<img>` `src` (or, when it is a placeholder,
 * the real URL of a lazy-loaded image: see lazyImageSrc) and the largest `srcset` candidate; `<picture><source srcset>`
 * (largest candidate); `<video poster>`; and the page's declared share images (`og:image`,
 * `twitter:image`, `<link rel=image_src>`), which are real images of the page even when not in the body.
 *
 * @param baseUrl final URL of the page.
 */
export function extractImages(doc: AnyNode, baseUrl: string): string[] {
  const base = documentBaseUrl(doc, baseUrl);
  const seen = new Set<string>();
  const add = (value: string | undefined): void => {
    if (value === undefined) return;
    const url = absoluteUrl(value, base);
    if (url !== null && (url.protocol === 'http:' || url.protocol === 'https:')) seen.add(url.href);
  };
  forEachElement(doc, (el) => {
    const a = el.attribs;
    switch (el.name) {
      case 'img': {
        // A placeholder src (spacer, 1x1 gif, data: URI) is not an image of the page; its real URL is.
        add(lazyImageSrc(el) ?? (isPlaceholderSrc(a.src) ? undefined : a.src));
        if (a.srcset !== undefined) add(largestSrcsetCandidate(a.srcset));
        if (a['data-srcset'] !== undefined) add(largestSrcsetCandidate(a['data-srcset']));
        break;
      }
      case 'source':
        if (el.parent?.type === 'tag' && el.parent.name === 'picture') {
          if (a.srcset !== undefined) add(largestSrcsetCandidate(a.srcset));
          else add(a.src);
        }
        break;
      case 'video':
        add(a.poster);
        break;
      case 'meta': {
        const name = (a.property ?? a.name ?? '').toLowerCase();
        if (META_IMAGES.has(name)) add(a.content);
        break;
      }
      case 'link':
        if (/(?:^|\s)image_src(?:\s|$)/i.test(a.rel ?? '')) add(a.href);
        break;
      default:
        break;
    }
  });
  return [...seen];
}
