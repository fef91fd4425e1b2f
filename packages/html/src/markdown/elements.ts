/**
 * Element classification tables shared by the whitespace collapser and the converter.
 * Names are lower-case because htmlparser2 lower-cases tag names in HTML mode.
 */

/** Block-level elements: they break lines and trim surrounding whitespace (turndown's list plus HTML5 additions). */
export const BLOCK_ELEMENTS: ReadonlySet<string> = new Set([
  'address', 'article', 'aside', 'audio', 'blockquote', 'body', 'canvas', 'center', 'dd', 'details', 'dialog',
  'dir', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'frameset', 'h1', 'h2', 'h3',
  'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'html', 'isindex', 'li', 'main', 'menu', 'nav', 'noframes',
  'noscript', 'ol', 'output', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead',
  'tr', 'ul', 'caption', 'video',
]);

/** Void elements: never have children; they count as content even though they have no text. */
export const VOID_ELEMENTS: ReadonlySet<string> = new Set([
  'area', 'base', 'br', 'col', 'command', 'embed', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param',
  'source', 'track', 'wbr',
]);

/**
 * Elements dropped with their whole subtree: not rendered by a browser, or pure noise in markdown.
 * A dropped element behaves as if it were absent (it does not even break whitespace runs).
 */
export const SKIPPED_ELEMENTS: ReadonlySet<string> = new Set([
  'script', 'style', 'noscript', 'template', 'head', 'title', 'meta', 'link', 'base', 'svg', 'math', 'iframe',
  'object', 'embed', 'canvas', 'select', 'datalist', 'frame', 'frameset', 'noframes', 'dialog', 'map', 'area',
  'audio', 'video', 'source', 'track', 'param', 'wbr', 'col', 'colgroup',
  // Ruby annotations (readings) and their fallback parentheses: the base text alone reads as the word.
  'rt', 'rp',
]);

/**
 * Inline elements with markdown of their own (a rule in rules.ts), or that turndown never treats as blank.
 * Other inline elements (span, font, label, custom elements ...) render exactly their content.
 */
export const MARKED_INLINE_ELEMENTS: ReadonlySet<string> = new Set([
  'a', 'img', 'em', 'i', 'cite', 'strong', 'b', 'del', 's', 'strike', 'code', 'kbd', 'samp', 'tt', 'input', 'br',
  'iframe', 'script', 'audio', 'video', 'caption', 'td', 'th',
]);

/** Block elements rendered by turndown's default rule: their content between blank lines. */
export const PLAIN_BLOCK_ELEMENTS: ReadonlySet<string> = new Set([
  'address', 'article', 'aside', 'body', 'center', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset', 'figcaption',
  'figure', 'footer', 'form', 'header', 'hgroup', 'html', 'main', 'nav', 'output', 'p', 'section', 'summary',
]);
