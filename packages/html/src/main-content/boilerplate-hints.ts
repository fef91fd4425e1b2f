import type { Element } from 'domhandler';
import { isElement, textContent } from '../dom/dom-helpers.js';

/**
 * Class/id words that mark boilerplate. A hint is one signal among several: it scales the scores of
 * the text below the element, it never removes content by itself (the scorer and the pruner decide).
 */
const NEGATIVE_HINT =
  /(?:^|[\s_-])(?:nav|navbar|navi|navigation|menu|menue|breadcrumbs?|sidebar|side-bar|sidebox|widgets?|footer|masthead|banner|ad|ads|adv|advert|advertisement|anzeige|werbung|sponsor|sponsored|promo|promotion|social|socials|share|sharing|shariff|sharebar|social-share|related|related-posts|recommended|recommendations|newsletter|subscribe|subscription|signup|cookie|cookies|consent|gdpr|cmp|popup|modal|overlay|pagination|pager|tagcloud|tags|tag-list|skip|skiplink|print|toolbar|login|searchform|search|meta-nav|topbar|top-bar|service|rating|author-box|authorbox|author-bio|authorbio|author-info|about-author|author-description|author-card|copyright|impressum|outbrain|taboola|teaser-list|more-articles|player|controls|settings|trending|most-read|mostread|popular|jump)(?:$|[\s_-])/i;

/** Comment sections: readers' text looks like content (sentences, few links), so the hint is strong. */
const COMMENT_HINT = /(?:^|[\s_-])(?:comments?|comment-list|commentlist|comment-form|disqus|respond|reply|replies|kommentare?|discussion|leserkommentare)(?:$|[\s_-])/i;

/** Words that mark content containers. */
const POSITIVE_HINT =
  /(?:^|[\s_-])(?:article|article-body|articlebody|article-content|content|entry|entry-content|post|post-content|post-body|story|story-body|text|body|main|hentry|artikel|beitrag|blog-post|single|prose|rte|richtext|news-detail)(?:$|[\s_-])/i;

/** A lower-case slug of four or more words: an anchor generated from a title. */
const TITLE_SLUG = /^[a-z0-9]+(?:-[a-z0-9]+){3,}$/;

/** True when `id` is the slug of the text of the first heading among the children of `el`. */
function isHeadingSlug(el: Element, id: string): boolean {
  for (const child of el.children) {
    if (!isElement(child)) continue;
    if (!/^h[1-6]$/.test(child.name)) return false;
    return slugOf(textContent(child)) === id;
  }
  return false;
}

function slugOf(title: string): string {
  return title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-|-$/g, '');
}

const TAXONOMY_CLASS = /^(?:category|tag|type|format|status|postid|term|topic|ressort|rubrik)-/;
const HAS_TAXONOMY_CLASS = /(?:^|\s)(?:category|tag|type|format|status|postid|term|topic|ressort|rubrik)-/i;

/** Hint class of an element, from its class and id attributes. */
export type HintKind = 'comment' | 'negative' | 'positive' | 'none';

/**
 * Classifies an element by its class and id. `comment` wins over `negative`, which wins over
 * `positive` only when no positive word is present (e.g. "post-footer" is negative, "post-content"
 * is positive). `cache` (class+id string -> hint) saves the regexes on repeated class names.
 */
export function hintOf(el: Element, cache?: Map<string, HintKind>): HintKind {
  // Classes of body and html describe the page (features, template), not a region of it.
  if (el.name === 'body' || el.name === 'html') return 'none';
  const cls = el.attribs['class'];
  let id = el.attribs['id'];
  // Ids made from the section's heading ("sharing-with-multiple-developers") name its topic, not its role.
  if (id !== undefined && TITLE_SLUG.test(id) && isHeadingSlug(el, id)) id = undefined;
  if (!cls && !id) return 'none';
  // Most elements have no id: their class string is the key as it is.
  const key = id === undefined ? (cls as string) : `${cls ?? ''} ${id}`;
  let hint = cache?.get(key);
  if (hint === undefined) {
    hint = classifyWords(key);
    cache?.set(key, hint);
  }
  return hint;
}

function classifyWords(key: string): HintKind {
  // The patterns ignore case: lower-casing every key cost more than the tests themselves.
  let words = key;
  // CMS taxonomy classes (WordPress "category-kommentare", "tag-share") name the topic of a post,
  // not the role of the element. Most keys have none: skip the split.
  if (HAS_TAXONOMY_CLASS.test(words)) {
    words = words
      .toLowerCase()
      .split(/\s+/)
      .filter((t) => t !== '' && !TAXONOMY_CLASS.test(t))
      .join(' ');
  }
  if (words === '') return 'none';
  if (COMMENT_HINT.test(words)) return 'comment';
  const neg = NEGATIVE_HINT.test(words);
  const pos = POSITIVE_HINT.test(words);
  if (neg && !pos) return 'negative';
  if (neg && pos) {
    // Compound names such as "post-footer" or "article-share": the last word decides.
    const last = words.trim().split(/[\s_-]+/).pop() ?? '';
    return NEGATIVE_HINT.test(last) ? 'negative' : 'positive';
  }
  return pos ? 'positive' : 'none';
}

/** Elements whose presence says "this container is the article" (structured data, ARIA, HTML5). */
export function isSemanticContent(el: Element): boolean {
  if (el.name === 'article' || el.name === 'main') return true;
  const role = el.attribs['role'];
  if (role === 'main' || role === 'article') return true;
  const itemprop = el.attribs['itemprop'];
  return itemprop !== undefined && /articleBody|text|reviewBody|mainEntity/i.test(itemprop);
}

/** Structural boilerplate elements, whatever their classes. */
export const BOILERPLATE_TAGS: ReadonlySet<string> = new Set(['nav', 'aside', 'footer', 'menu', 'dialog']);

/** Controls and non-text media that carry no content in a text or markdown rendering. */
export const NON_CONTENT_TAGS: ReadonlySet<string> = new Set([
  'button', 'input', 'select', 'textarea', 'option', 'optgroup', 'svg', 'canvas', 'map', 'object', 'embed',
]);

/** True when inline style or attributes hide the element from readers. */
export function isHidden(el: Element): boolean {
  const a = el.attribs;
  if (a['hidden'] !== undefined) return true;
  if (a['aria-hidden'] === 'true' && el.name !== 'img') return true;
  const style = a['style'];
  return style !== undefined && /(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}
