import { safeSelectAll } from '../clean/select-tags.js';
import { absolutize, resolveBaseUrl } from '../clean/resolve-urls.js';
import { parseHtml } from '../dom/parse-html.js';

/** One requested selector/attribute pair and the values found, in document order. */
export interface SelectedAttribute {
  selector: string;
  attribute: string;
  values: string[];
}

/**
 * Attributes whose values are URLs: resolved against the document's base (its `<base href>`, else the
 * page URL), like the `links` and `images` formats, since a relative URL means nothing without the
 * page. Values that do not resolve (`javascript:`, `mailto:`, `data:`...) stay as written.
 */
const URL_ATTRIBUTES: ReadonlySet<string> = new Set(['href', 'src', 'action', 'poster', 'cite', 'data']);

/**
 * For each `{selector, attribute}`, the values of `attribute` on the elements matching the CSS
 * `selector` in `html` (elements without the attribute are skipped). A selector css-select cannot
 * parse matches nothing (empty `values`), so one bad selector does not fail the others.
 * Attribute names are matched lower-cased (the parser lower-cases them).
 */
export function selectAttributes(
  html: string,
  pageUrl: string,
  selectors: ReadonlyArray<{ selector: string; attribute: string }>,
): SelectedAttribute[] {
  const doc = parseHtml(html);
  const base = resolveBaseUrl(doc, pageUrl);
  const invalid: string[] = [];
  return selectors.map(({ selector, attribute }) => {
    const name = attribute.toLowerCase();
    const values: string[] = [];
    for (const el of safeSelectAll(selector, doc, invalid)) {
      const raw = el.attribs[name];
      if (raw === undefined) continue;
      values.push(URL_ATTRIBUTES.has(name) ? (absolutize(raw, base) ?? raw) : raw);
    }
    return { selector, attribute, values };
  });
}
