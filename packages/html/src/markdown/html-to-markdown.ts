import { buildDom } from '../dom/build-dom.js';
import type { AnyNode, Element } from 'domhandler';
import TurndownService from 'turndown';
import { buildMirror } from './build-mirror.js';
import type { ConversionContext } from './context.js';
import { LINE_ESCAPE, resolvePlaceholders } from './emphasis.js';
import { escapeMarkdown } from './escape.js';
import type { MirrorElement } from './mirror-node.js';
import { parseBaseUrl } from './resolve-url.js';
import { blankReplacement, defaultReplacement, markdownRules } from './rules.js';

/** Options of {@link htmlToMarkdown}. */
export interface HtmlToMarkdownOptions {
  /**
   * Absolute URL of the page; relative links and images are resolved against it (and against the
   * document's `<base href>` when present). Default: none, URLs are kept as written.
   */
  readonly baseUrl?: string;
}

/**
 * What turndown receives: a node whose deep clone is the mirror of the domhandler tree (turndown clones
 * its input before collapsing whitespace in place, so the mirror is built exactly once, by that clone).
 */
class MirrorSource {
  readonly nodeType = 11;
  constructor(private readonly source: AnyNode) {}

  cloneNode(): MirrorElement {
    return buildMirror(this.source);
  }
}

/** A turndown service with this package's rules and escaping, for one conversion. */
function createTurndown(ctx: ConversionContext): TurndownService {
  // The mirror implements the part of the DOM turndown uses; its typings name the DOM's HTMLElement.
  type DomReplacement = NonNullable<TurndownService.Rule['replacement']>;
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    blankReplacement: blankReplacement as unknown as DomReplacement,
    defaultReplacement: defaultReplacement as unknown as DomReplacement,
  });
  // addRule puts a rule first: add the least frequent first.
  for (const [key, rule] of markdownRules(ctx).reverse()) service.addRule(key, rule as unknown as TurndownService.Rule);
  service.escape = (text: string): string => {
    const out = escapeMarkdown(text);
    if (out !== text && !ctx.placeholders && out.includes(LINE_ESCAPE)) ctx.placeholders = true;
    return out;
  };
  return service;
}

const FENCED_BLOCK = /(?:^|\n)[ >]*(`{3,})[^\n`]*\n[\s\S]*?\n[ >]*\1`*(?=\n|$)/g;

function tidyProse(text: string): string {
  return text.replace(/\n[ \t]+(?=\n)/g, '\n').replace(/\n{3,}/g, '\n\n');
}

/**
 * Final cleanup: trimmed, no whitespace-only lines and at most one blank line in a row outside code
 * blocks (code keeps its own blank lines).
 */
function tidy(markdown: string): string {
  let out = '';
  if (markdown.includes('```')) {
    let last = 0;
    for (const m of markdown.matchAll(FENCED_BLOCK)) {
      out += tidyProse(markdown.slice(last, m.index)) + m[0];
      last = m.index + m[0].length;
    }
    out += tidyProse(markdown.slice(last));
  } else {
    out = tidyProse(markdown);
  }
  return out.replace(/^[\t\r\n ]+/, '').trimEnd();
}

/** `<base href>` of a document (first one with an href, as browsers do). */
function documentBase(node: AnyNode): string | undefined {
  const html = node.type === 'root' ? node.children.find((c): c is Element => c.type === 'tag' && c.name === 'html') : undefined;
  const head = html?.children.find((c): c is Element => c.type === 'tag' && c.name === 'head');
  const base = head?.children.find((c): c is Element => c.type === 'tag' && c.name === 'base' && c.attribs.href !== undefined);
  return base?.attribs.href;
}

/**
 * Converts HTML to GitHub-flavoured markdown with turndown, on a domhandler DOM.
 *
 * ATX headings, `-` bullets and `1.` ordered lists (honouring `start`), fenced code blocks with the
 * language from `language-x`/`lang-x`/`highlight-source-x`, GFM tables, strikethrough and task lists,
 * inline links and images with absolute URLs. Scripts, styles, forms' selects, media and other
 * non-content elements are dropped. The input DOM is not modified. Never throws on malformed HTML.
 *
 * Turndown runs its own engine (whitespace collapsing, blank and flanking-whitespace detection, rule
 * selection, joining) over a mirror of the domhandler tree (see mirror-node.ts) with this package's rules
 * (rules.ts, table.ts) and escaping (escape.ts) in place of its defaults and of turndown-plugin-gfm.
 *
 * @param input HTML source, or a domhandler node (a Document converts its children, an Element itself).
 * @param opts see {@link HtmlToMarkdownOptions}.
 * @returns trimmed markdown; '' for empty input.
 */
export function htmlToMarkdown(input: string | AnyNode, opts: HtmlToMarkdownOptions = {}): string {
  if (input === '') return '';
  const node: AnyNode = typeof input === 'string' ? buildDom(input) : input;
  const pageBase = parseBaseUrl(opts.baseUrl);
  const base = parseBaseUrl(documentBase(node), pageBase);
  const ctx: ConversionContext = { base, cells: new Map(), tables: new Map(), cellModes: new Map(), placeholders: false };
  const markdown = createTurndown(ctx).turndown(new MirrorSource(node) as unknown as TurndownService.Node);
  return tidy(ctx.placeholders ? resolvePlaceholders(markdown) : markdown);
}
