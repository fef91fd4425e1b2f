import { LINE_ESCAPE, PLACEHOLDERS } from './emphasis.js';
/**
 * Markdown escaping of text nodes, only where a character could start markdown syntax.
 *
 * Differs from turndown on purpose: `_` is escaped only when it can open or close emphasis (not inside
 * words such as snake_case), `<` only when it could start an HTML tag, and line-start markers only at the
 * start of a line. A single precheck regex lets the (common) text with nothing to escape through untouched;
 * that precheck is what keeps escaping cheap (measured: under 3% of conversion time on real pages).
 */

// Characters that may need escaping anywhere, plus anything that may need escaping at a line start.
const NEEDS_WORK = /[\\*_`[\]<\uE000-\uE006]|^(?:[-+=#>~]|\d+[.)])/m;
const INLINE = /[\\*`[\]]|<(?=[A-Za-z/!?])|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
const LINE_START = /^(?:(-(?=\s|$|-)|\+(?= )|=+|#{1,6}(?= |$)|>|~~~)|(\d+)([.)])(?= |$))/gm;

/** Escapes markdown-significant characters in `text` (already whitespace-collapsed text of one node). */
export function escapeMarkdown(text: string): string {
  if (!NEEDS_WORK.test(text)) return text;
  // The emphasis placeholders (see emphasis.ts) must not come from the page.
  let out = text.replace(PLACEHOLDERS, '').replace(INLINE, '\\$&');
  out = out.replace(LINE_START, (_m, marker: string | undefined, num: string | undefined, punct: string | undefined) =>
    marker !== undefined ? `${LINE_ESCAPE}${marker}` : `${num ?? ''}${LINE_ESCAPE}${punct ?? ''}`,
  );
  return out;
}

/** Escapes a link destination: parentheses and angle brackets; wraps it in `<>` when it contains a space. */
export function escapeLinkDestination(url: string): string {
  const escaped = /[()<>]/.test(url) ? url.replace(/[()<>]/g, '\\$&') : url;
  return escaped.includes(' ') ? `<${escaped}>` : escaped;
}

/** Cleans and escapes a link or image title (quotes escaped, newline runs collapsed). */
export function escapeLinkTitle(title: string): string {
  return title.replace(/(\n+\s*)+/g, '\n').replace(/"/g, '\\"');
}
