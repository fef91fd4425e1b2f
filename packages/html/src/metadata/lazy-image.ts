import type { AnyNode, Element } from 'domhandler';
import { decodeHTML } from 'entities';
import { largestSrcsetCandidate } from './srcset.js';

/** Attributes that lazy-loading scripts use for the real image URL while `src` holds a placeholder. */
const LAZY_SRC_ATTRS = ['data-src', 'data-lazy-src', 'data-original', 'data-url'] as const;
const LAZY_SRCSET_ATTRS = ['data-srcset', 'data-lazy-srcset', 'srcset'] as const;
/** File names of placeholder images (the whole name: `blank.gif`, `spacer.gif`, `placeholder-image.png`, `lazyload.svg`, `1x1.gif`). */
const PLACEHOLDER_NAME =
  /(?:^|\/)(?:blank|spacer|placeholder|pixel|transparent|1x1|lazy-?load(?:er|ing)?|loading|empty|grey|gray)(?:[-_]?(?:img|image|pixel|gif|\d+(?:x\d+)?))?\.(?:gif|png|svg|jpe?g|webp)(?:[?#]|$)/i;
const NOSCRIPT_IMG_SRC = /<img\b[^>]*?\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i;

/**
 * Whether an image `src` is a stand-in that lazy-loading scripts replace: missing or empty, a `data:`
 * URI (a 1x1 gif or a blurred preview), or a file named like a placeholder (`blank.gif`, `spacer.gif`,
 * `placeholder.png`, `lazy-load.svg` ...).
 */
export function isPlaceholderSrc(src: string | undefined): boolean {
  const s = src?.trim() ?? '';
  return s === '' || /^data:/i.test(s) || PLACEHOLDER_NAME.test(s);
}

const usable = (v: string | undefined): string | undefined => {
  const s = v?.trim();
  return s === undefined || s === '' || /^data:/i.test(s) ? undefined : s;
};

/** `src` of the `<img>` in a `<noscript>` (element children, or raw text when the parser keeps it as text). */
function noscriptImageSrc(noscript: Element): string | undefined {
  for (const child of noscript.children) {
    if (child.type === 'tag' && child.name === 'img') return usable(child.attribs.src);
    if (child.type === 'tag') {
      const deeper = child.children.find((c): c is Element => c.type === 'tag' && c.name === 'img');
      if (deeper !== undefined) return usable(deeper.attribs.src);
    }
    if (child.type === 'text') {
      const m = NOSCRIPT_IMG_SRC.exec(child.data);
      if (m !== null) return usable(decodeHTML(m[1] ?? m[2] ?? m[3] ?? ''));
    }
  }
  return undefined;
}

/** The `<noscript>` right before or after `el` (whitespace between them allowed). */
function noscriptTwin(el: Element): Element | undefined {
  const near = (start: AnyNode | null, step: (n: AnyNode) => AnyNode | null): Element | undefined => {
    let n = start;
    while (n !== null && n.type === 'text' && n.data.trim() === '') n = step(n);
    return n !== null && n.type === 'tag' && n.name === 'noscript' ? n : undefined;
  };
  return near(el.next, (n) => n.next) ?? near(el.prev, (n) => n.prev);
}

/**
 * The real URL of a lazy-loaded `<img>` whose `src` is a placeholder (see isPlaceholderSrc): from
 * `data-src`, `data-lazy-src`, `data-original`, `data-url`, the largest `data-srcset`/`srcset` candidate,
 * or the `<img>` of the `<noscript>` twin next to it. Undefined when `src` is real or nothing better is
 * known. The URL is returned as written (not resolved).
 */
export function lazyImageSrc(el: Element): string | undefined {
  const a = el.attribs;
  if (!isPlaceholderSrc(a.src)) return undefined;
  for (const name of LAZY_SRC_ATTRS) {
    const v = usable(a[name]);
    if (v !== undefined) return v;
  }
  for (const name of LAZY_SRCSET_ATTRS) {
    const set = a[name];
    const v = set === undefined ? undefined : usable(largestSrcsetCandidate(set));
    if (v !== undefined) return v;
  }
  const twin = noscriptTwin(el);
  return twin === undefined ? undefined : noscriptImageSrc(twin);
}
