import { parseDocument } from 'htmlparser2';
import type { AnyNode, Document, Element } from 'domhandler';
import { codeBlockText, renderCodeBlock, renderInlineCode } from './code-block.js';
import { collapseWhitespace } from './collapse-whitespace.js';
import type { ConvertContext } from './context.js';
import { BLOCK_ELEMENTS, SKIPPED_ELEMENTS } from './elements.js';
import { escapeLinkDestination, escapeLinkTitle, escapeMarkdown } from './escape.js';
import { parseBaseUrl, resolveUrl } from './resolve-url.js';
import { MAX_TABLE_DEPTH, renderTable } from './table.js';

/** Options of {@link htmlToMarkdown}. */
export interface HtmlToMarkdownOptions {
  /**
   * Absolute URL of the page; relative links and images are resolved against it (and against the
   * document's `<base href>` when present). Default: none, URLs are kept as written.
   */
  readonly baseUrl?: string;
}

// How an element's converted children become its markdown (turndown's rules, as a closed set).
const enum Kind {
  Inline,
  Block,
  Heading,
  Blockquote,
  List,
  ListItem,
  Link,
  Emphasis,
  Strong,
  Strike,
  Code,
}

const KINDS: ReadonlyMap<string, Kind> = new Map([
  ['h1', Kind.Heading], ['h2', Kind.Heading], ['h3', Kind.Heading], ['h4', Kind.Heading], ['h5', Kind.Heading],
  ['h6', Kind.Heading], ['blockquote', Kind.Blockquote], ['ul', Kind.List], ['ol', Kind.List], ['menu', Kind.List],
  ['li', Kind.ListItem], ['a', Kind.Link], ['em', Kind.Emphasis], ['i', Kind.Emphasis], ['cite', Kind.Emphasis],
  ['strong', Kind.Strong], ['b', Kind.Strong], ['del', Kind.Strike], ['s', Kind.Strike], ['strike', Kind.Strike],
  ['code', Kind.Code], ['kbd', Kind.Code], ['samp', Kind.Code], ['tt', Kind.Code],
]);

const NEWLINES = ['', '\n', '\n\n'] as const;

/** One element being converted: its children's markdown accumulates in `acc` (+ `pending` newlines). */
interface Frame {
  readonly el: Element;
  readonly kind: Kind;
  readonly block: boolean;
  /** Inside inline code: text is not escaped and nested markup is dropped. */
  readonly code: boolean;
  /** Marker of a list item (`- `, `3. `). */
  readonly marker: string;
  /** Inline marks (emphasis, strong, strike) already open around this frame, as a bit set. */
  readonly marks: number;
  /** Lists and blockquotes open around this frame (indentation depth). */
  readonly nest: number;
  i: number;
  /** Converted children without leading/trailing newlines (kept in `lead`/`pending`, so they never need re-scanning). */
  acc: string;
  lead: number;
  pending: number;
  /** Some non-whitespace text or a contentful void element below (turndown's "not blank"). */
  content: boolean;
  /** Next item number, for ordered lists. */
  counter: number;
}

function newFrame(el: Element, kind: Kind, code: boolean, marker: string, marks: number, nest: number): Frame {
  const counter = kind === Kind.List && el.name === 'ol' ? startNumber(el.attribs.start) : 1;
  return { el, kind, block: BLOCK_ELEMENTS.has(el.name), code, marker, marks, nest, i: 0, acc: '', lead: 0, pending: 0, content: false, counter };
}

/**
 * Lists and blockquotes nested deeper than this are not indented further: markdown indentation makes the
 * output grow with depth squared, and no real page needs more.
 */
const MAX_NEST = 12;

const MARK_BITS: Partial<Record<Kind, number>> = { [Kind.Emphasis]: 1, [Kind.Strong]: 2, [Kind.Strike]: 4 };

function startNumber(start: string | undefined): number {
  const n = start === undefined ? Number.NaN : Number.parseInt(start, 10);
  return Number.isFinite(n) && n >= 0 && n < 1e9 ? n : 1;
}

/**
 * Appends converted markdown (`core`, with no newline at either end, between `lead` and `trail`
 * newlines) to a frame the way turndown joins: newlines between two parts collapse to the larger of the
 * two runs, at most two (one blank line). Strings are never re-scanned, so deep nesting stays linear.
 */
function appendParts(f: Frame, core: string, lead: number, trail: number): void {
  if (core === '') {
    const n = lead > trail ? lead : trail;
    if (n > f.pending) f.pending = n;
    return;
  }
  const nls = f.pending > lead ? f.pending : lead;
  if (f.acc === '') {
    f.lead = nls > 2 ? 2 : nls;
    f.acc = core;
  } else {
    f.acc += nls === 0 ? core : NEWLINES[nls > 2 ? 2 : nls] + core;
  }
  f.pending = trail;
}

/** Appends a replacement string (scanned for its edge newlines). */
function append(f: Frame, rep: string): void {
  const len = rep.length;
  if (len === 0) return;
  let s = 0;
  while (s < len && rep.charCodeAt(s) === 10) s++;
  let e = len;
  while (e > s && rep.charCodeAt(e - 1) === 10) e--;
  appendParts(f, s === 0 && e === len ? rep : rep.slice(s, e), s, len - e);
}

function contentOf(f: Frame): string {
  const lead = f.lead === 0 ? '' : NEWLINES[f.lead > 2 ? 2 : f.lead];
  return f.pending === 0 ? lead + f.acc : lead + f.acc + NEWLINES[f.pending > 2 ? 2 : f.pending];
}

/** Moves leading/trailing whitespace outside of delimiters (`<em> a </em>` -> ` *a* `). */
function wrap(content: string, open: string, close: string): string {
  const core = content.trim();
  if (core === '') return content === '' ? '' : ' ';
  if (core.length === content.length) return open + core + close;
  const lead = content.slice(0, content.length - content.trimStart().length);
  const trail = content.slice(content.trimEnd().length);
  return lead + open + core + close + trail;
}

function renderLink(f: Frame, content: string, ctx: ConvertContext): string {
  const href = f.el.attribs.href;
  if (href === undefined) return content;
  const url = resolveUrl(href, ctx.base);
  if (url === null || /^\s*(?:javascript|vbscript|data):/i.test(url)) return content;
  let text = content;
  if (content.includes('\n')) {
    // Block content inside a link: keep it on one line; edge whitespace made of line breaks is dropped.
    const lead = /^\s*/.exec(content)?.[0] ?? '';
    const trail = content.slice(content.trimEnd().length);
    text = (lead.includes('\n') ? '' : lead) + content.trim().replace(/\s*\n\s*/g, ' ') + (trail.includes('\n') ? '' : trail);
  }
  const title = f.el.attribs.title?.replace(/\s+/g, ' ').trim();
  const titlePart = title ? ` "${escapeLinkTitle(title)}"` : '';
  return wrap(text, '[', `](${escapeLinkDestination(url)}${titlePart})`);
}

function renderImage(el: Element, ctx: ConvertContext): string {
  const a = el.attribs;
  // Lazy-loading pages keep the real URL in data-src and a placeholder (often a data: URL) in src.
  let src = a.src?.trim();
  if (src === undefined || src === '' || src.startsWith('data:')) src = (a['data-src'] ?? a['data-original'])?.trim() ?? src;
  if (src === undefined || src === '') return '';
  // A placeholder such as `<Base64-Image-Removed>` (see removeBase64Images) is kept verbatim.
  const placeholder = src.startsWith('<') && src.endsWith('>');
  const url = placeholder ? src : resolveUrl(src, ctx.base);
  if (url === null) return '';
  const alt = escapeMarkdown((a.alt ?? '').replace(/\s+/g, ' ').trim());
  const title = a.title?.trim();
  const titlePart = title ? ` "${escapeLinkTitle(title)}"` : '';
  return `![${alt}](${placeholder ? url : escapeLinkDestination(url)}${titlePart})`;
}

/** Turns a finished frame into markdown appended to its parent (turndown's rule replacements). */
function finish(f: Frame, parent: Frame, ctx: ConvertContext): void {
  // Blank elements vanish, but an inline one keeps its whitespace (`Foo<span> </span>Bar`).
  if (!f.content && f.kind !== Kind.Link) {
    if (f.block) appendParts(parent, '', 2, 2);
    else if (f.acc !== '') append(parent, ' ');
    return;
  }
  switch (f.kind) {
    case Kind.Inline:
      appendParts(parent, f.acc, f.lead, f.pending);
      return;
    case Kind.Block:
      appendParts(parent, f.acc, 2, 2);
      return;
    case Kind.Heading: {
      const text = f.acc.replace(/\s*\n\s*/g, ' ').trim();
      if (ctx.cellMode) append(parent, ' ' + text + ' ');
      else appendParts(parent, '#'.repeat(Number(f.el.name.charAt(1))) + ' ' + text, 2, 2);
      return;
    }
    case Kind.Blockquote:
      appendParts(parent, f.acc.replace(/^/gm, '> ').replace(/^> $/gm, '>'), 2, 2);
      return;
    case Kind.List: {
      const inItem = parent.kind === Kind.ListItem && parent.el === f.el.parent && isLastElementChild(f.el);
      if (inItem) appendParts(parent, f.acc, Math.max(1, f.lead), f.pending);
      else appendParts(parent, f.acc, 2, 2);
      return;
    }
    case Kind.ListItem: {
      const body = f.acc.includes('\n') ? f.acc.replace(/\n/g, '\n' + ' '.repeat(f.marker.length)) : f.acc;
      appendParts(parent, f.marker + body, 0, f.pending > 0 ? 2 : 1);
      return;
    }
    case Kind.Link:
      append(parent, renderLink(f, contentOf(f), ctx));
      return;
    case Kind.Emphasis:
      append(parent, wrap(contentOf(f), '*', '*'));
      return;
    case Kind.Strong:
      append(parent, wrap(contentOf(f), '**', '**'));
      return;
    case Kind.Strike:
      append(parent, wrap(contentOf(f), '~~', '~~'));
      return;
    case Kind.Code:
      append(parent, codeSpan(contentOf(f)));
      return;
  }
}

function codeSpan(content: string): string {
  const core = content.trim();
  const lead = content.length - content.trimStart().length > 0 ? ' ' : '';
  const trail = content.length - content.trimEnd().length > 0 ? ' ' : '';
  return lead + renderInlineCode(core) + trail;
}

function isLastElementChild(el: Element): boolean {
  for (let n = el.next; n !== null; n = n.next) if (n.type === 'tag') return false;
  return true;
}

function listMarker(el: Element, parent: Frame): string {
  if (parent.kind !== Kind.List || parent.el !== el.parent) return '- ';
  if (parent.el.name !== 'ol') return '- ';
  return `${parent.counter++}. `;
}

/**
 * Handles an element met as a child of `top`: either appends its markdown at once (void and atomic
 * elements) or returns a frame to push.
 */
function open(el: Element, top: Frame, ctx: ConvertContext): Frame | null {
  const name = el.name;
  if (SKIPPED_ELEMENTS.has(name)) return null;
  if (top.code) {
    if (name === 'br') append(top, '\n');
    return name === 'br' ? null : newFrame(el, Kind.Inline, true, '', top.marks, top.nest);
  }
  switch (name) {
    case 'br':
      top.content = true;
      append(top, ctx.cellMode ? ' ' : '  \n');
      return null;
    case 'hr':
      top.content = true;
      append(top, ctx.cellMode ? ' ' : '\n\n---\n\n');
      return null;
    case 'img': {
      const md = renderImage(el, ctx);
      if (md !== '') top.content = true;
      append(top, md);
      return null;
    }
    case 'input':
      if (el.attribs.type?.toLowerCase() === 'checkbox') {
        top.content = true;
        append(top, el.attribs.checked !== undefined ? '[x] ' : '[ ] ');
      }
      return null;
    case 'pre': {
      const md = ctx.cellMode ? renderInlineCode(codeBlockText(el).trim()) : renderCodeBlock(el);
      if (md === '') return null;
      top.content = true;
      append(top, md);
      return null;
    }
    case 'table':
      if (ctx.tableDepth < MAX_TABLE_DEPTH) {
        const md = renderTable(el, ctx, convertChildren);
        if (md.trim() !== '') top.content = true;
        append(top, md);
        return null;
      }
      break;
    default:
      break;
  }
  let kind = KINDS.get(name) ?? (BLOCK_ELEMENTS.has(name) ? Kind.Block : Kind.Inline);
  const bit = MARK_BITS[kind] ?? 0;
  // `<b><b>x</b></b>` must not become `****x****`: a mark already open is not opened again.
  if (bit !== 0 && (top.marks & bit) !== 0) kind = Kind.Inline;
  // An item of a list demoted to a plain block (see MAX_NEST) is a plain block too.
  if (kind === Kind.ListItem && top.nest >= MAX_NEST && top.kind !== Kind.List) kind = Kind.Block;
  let nest = top.nest;
  if (kind === Kind.List || kind === Kind.Blockquote) {
    if (nest >= MAX_NEST) kind = Kind.Block;
    else nest++;
  }
  const marker = kind === Kind.ListItem ? listMarker(el, top) : '';
  return newFrame(el, kind, kind === Kind.Code, marker, top.marks | bit, nest);
}

/**
 * Converts the children of `root` (iteratively: any nesting depth is safe). Each element's children are
 * converted into its frame; when the last child is done the element's rule turns that into markdown
 * which is appended to the parent frame.
 */
function convertChildren(root: Element, ctx: ConvertContext): string {
  const rootFrame = newFrame(root, Kind.Inline, false, '', 0, 0);
  const stack: Frame[] = [rootFrame];
  for (;;) {
    const top = stack[stack.length - 1] as Frame;
    const child = top.el.children[top.i++];
    if (child === undefined) {
      if (stack.length === 1) break;
      stack.pop();
      const parent = stack[stack.length - 1] as Frame;
      finish(top, parent, ctx);
      if (top.content) parent.content = true;
      continue;
    }
    if (child.type === 'text') {
      const text = ctx.ws.get(child) ?? '';
      if (text === '') continue;
      if (!top.content && text.trim() !== '') top.content = true;
      append(top, top.code ? text : escapeMarkdown(text));
    } else if (child.type === 'tag' || child.type === 'script' || child.type === 'style') {
      const frame = open(child, top, ctx);
      if (frame !== null) stack.push(frame);
    }
  }
  return contentOf(rootFrame);
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
 * Converts HTML to GitHub-flavoured markdown (turndown's rules and output model, on a domhandler DOM).
 *
 * ATX headings, `-` bullets and `1.` ordered lists (honouring `start`), fenced code blocks with the
 * language from `language-x`/`lang-x`/`highlight-source-x`, GFM tables, strikethrough and task lists,
 * inline links and images with absolute URLs. Scripts, styles, forms' selects, media and other
 * non-content elements are dropped. The input DOM is not modified. Never throws on malformed HTML.
 *
 * @param input HTML source, or a domhandler node (a Document converts its children, an Element itself).
 * @param opts see {@link HtmlToMarkdownOptions}.
 * @returns trimmed markdown; '' for empty input.
 */
export function htmlToMarkdown(input: string | AnyNode, opts: HtmlToMarkdownOptions = {}): string {
  if (input === '') return '';
  const node: AnyNode = typeof input === 'string' ? parseDocument(input) : input;
  const pageBase = parseBaseUrl(opts.baseUrl);
  const base = parseBaseUrl(documentBase(node), pageBase);
  const ctx: ConvertContext = { base, ws: collapseWhitespace(node), cellMode: false, tableDepth: 0 };
  let markdown: string;
  if (node.type === 'root' || node.type === 'tag') {
    const holder = node.type === 'root' ? (node as Document) : undefined;
    // A fake parent makes an Element convert itself (not only its children) through the same loop.
    const root = holder ?? ({ type: 'tag', name: '#root', attribs: {}, children: [node], parent: null, next: null } as unknown as Element);
    markdown = convertChildren(root as Element, ctx);
  } else if (node.type === 'text') {
    markdown = escapeMarkdown(node.data.replace(/[ \r\n\t]+/g, ' '));
  } else {
    markdown = '';
  }
  return tidy(markdown);
}
