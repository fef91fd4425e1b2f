import { MAX_NEST } from './build-mirror.js';
import { renderCodeBlock, renderInlineCode } from './code-block.js';
import type { ConversionContext, MirrorRule } from './context.js';
import { EM_CLOSE, EM_OPEN, LINE_ESCAPE, STRIKE_CLOSE, STRIKE_OPEN, STRONG_CLOSE, STRONG_OPEN } from './emphasis.js';
import { escapeLinkDestination, escapeLinkTitle, escapeMarkdown } from './escape.js';
import type { MirrorElement, MirrorNode } from './mirror-node.js';
import { resolveUrl } from './resolve-url.js';
import { inTableCell, tableRules } from './table.js';

const tags = (...names: string[]): ((node: MirrorElement) => boolean) => {
  if (names.length === 1) {
    const only = names[0];
    return (node) => node.tag === only;
  }
  const set = new Set(names);
  return (node) => set.has(node.tag);
};

function trimNewlines(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && s.charCodeAt(start) === 10) start++;
  while (end > start && s.charCodeAt(end - 1) === 10) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
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

/** Text of an inline code element's subtree (markup inside code is dropped; `<br>` is a space). */
function codeText(el: MirrorElement): string {
  let out = '';
  const stack: MirrorNode[] = [...el.childNodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as MirrorNode;
    if (node.nodeType === 3) out += node.data;
    else if (node.tag === 'br') out += ' ';
    else for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push(node.childNodes[i] as MirrorNode);
  }
  return out;
}

const block = (content: string): string => `\n\n${content}\n\n`;

/** Elements written as code spans. */
const CODE_SPANS = ['code', 'kbd', 'samp', 'tt'];
const CODE_SPAN_TAGS = new Set(CODE_SPANS);
const isCodeSpan = (node: MirrorNode | null): node is MirrorElement => node !== null && node.nodeType === 1 && CODE_SPAN_TAGS.has(node.tag);
/**
 * Escapes attribute text written as markdown text (image alt, link label); the line-start escapes it may hold
 * are placeholders, resolved (dropped mid-line) with the others.
 */
function escapeText(text: string, ctx: ConversionContext): string {
  const out = escapeMarkdown(text);
  if (!ctx.placeholders && out.includes(LINE_ESCAPE)) ctx.placeholders = true;
  return out;
}

/**
 * Heading text CommonMark would end with a closing sequence: a run of `#` at the start or after a space (a
 * run at the start carries the line-start escape placeholder, which is dropped mid-line).
 */
const CLOSING_HASHES = new RegExp(`(?:^|[ \\t])${LINE_ESCAPE}?#+$`);

/** One ATX heading line, as the heading rule writes it. */
const ATX_HEADING = /^(#{1,6}) (.*)$/;

function renderLink(content: string, node: MirrorElement, ctx: ConversionContext): string {
  const href = node.attribs.href;
  if (href === undefined) return content;
  const url = resolveUrl(href, ctx.base);
  if (url === null || /^\s*(?:javascript|vbscript|data):/i.test(url)) return content;
  const title = node.attribs.title?.replace(/\s+/g, ' ').trim();
  const close = `](${escapeLinkDestination(url)}${title ? ` "${escapeLinkTitle(title)}"` : ''})`;
  let text = content;
  if (content.trim() === '') {
    // Nothing visible inside (an icon: `<a aria-label="Home"><svg/></a>`): its accessible name is the text, else
    // the link is dropped (a link without text cannot be followed from the markdown).
    const label = (node.attribs['aria-label'] ?? node.attribs.title ?? '').replace(/\s+/g, ' ').trim();
    return label === '' ? content : `${content}[${escapeText(label, ctx)}${close}`;
  }
  if (content.includes('\n')) {
    const core = content.trim();
    // A link around one heading (`<a><h2>Title</h2></a>`, common in article lists) is a heading holding the link.
    const heading = core.includes('\n') ? null : ATX_HEADING.exec(core);
    if (heading !== null) return block(`${heading[1]} [${heading[2]}${close}`);
    // Other block content inside a link: kept on one line (a link cannot span blocks); headings become strong
    // text, quote markers and thematic breaks are dropped, as their markers mean nothing mid-line. Edge whitespace made of
    // line breaks is dropped.
    const lead = /^\s*/.exec(content)?.[0] ?? '';
    const trail = content.slice(content.trimEnd().length);
    let inner = core.replace(/^(?:> ?)+/gm, '').replace(/^---$/gm, '');
    if (/^#{1,6} /m.test(inner)) {
      ctx.placeholders = true;
      inner = inner.replace(/^#{1,6} (.*)$/gm, `${STRONG_OPEN}$1${STRONG_CLOSE}`);
    }
    text = (lead.includes('\n') ? '' : lead) + inner.trim().replace(/\s*\n\s*/g, ' ') + (trail.includes('\n') ? '' : trail);
  }
  return wrap(text, '[', close);
}

function renderImage(node: MirrorElement, ctx: ConversionContext): string {
  const a = node.attribs;
  // A lazy-loading placeholder src was replaced by the real URL when mirroring (see lazyImageSrc).
  const src = a.src?.trim();
  if (src === undefined || src === '') return '';
  // A placeholder such as `<Base64-Image-Removed>` (see removeBase64Images) is kept verbatim.
  const placeholder = src.startsWith('<') && src.endsWith('>');
  const url = placeholder ? src : resolveUrl(src, ctx.base);
  if (url === null) return '';
  const alt = escapeText((a.alt ?? '').replace(/\s+/g, ' ').trim(), ctx);
  const title = a.title?.trim();
  const titlePart = title ? ` "${escapeLinkTitle(title)}"` : '';
  return `![${alt}](${placeholder ? url : escapeLinkDestination(url)}${titlePart})`;
}

const LISTS = new Set(['ul', 'ol', 'menu']);

/** Wrappers whose markdown is just their content's blocks: a list at their edge is at theirs. */
const WRAPPERS: ReadonlySet<string> = new Set([
  'address', 'article', 'aside', 'body', 'center', 'details', 'div', 'fieldset', 'figure', 'footer', 'form',
  'header', 'html', 'main', 'nav', 'section',
]);
const LOOKAROUND = 64;
/** Content of nothing but (zero-width) spaces: `<p>&#8203;</p>`, `<p>&nbsp;</p>` are dropped. */
const INVISIBLE = /^[\s\u200B-\u200D\u2060\uFEFF]*$/;
/** Elements that render nothing when they hold no visible text (`<p> </p>`, `<p><br></p>`, `<ul></ul>`). */
const BLANKABLE: ReadonlySet<string> = new Set([...WRAPPERS, 'p', 'span', 'br', 'ul', 'ol', 'menu', 'font', 'small']);

/** Whether `n` renders nothing: an empty list, or blankable elements and invisible text only. */
function rendersNothing(n: MirrorNode): boolean {
  if (n.nodeType === 1 && LISTS.has(n.tag) && n.firstChild === null) return true;
  const stack: MirrorNode[] = [n];
  for (let seen = 0; stack.length > 0; seen++) {
    const cur = stack.pop() as MirrorNode;
    if (seen > LOOKAROUND) return false;
    if (cur.nodeType === 3) {
      if (!INVISIBLE.test(cur.data)) return false;
    } else {
      if (!BLANKABLE.has(cur.tag)) return false;
      for (let c = cur.firstChild; c !== null; c = c.nextSibling) stack.push(c);
    }
  }
  return true;
}

/**
 * The list whose markdown comes right before `list`'s (only blank lines between), if any: its previous
 * sibling (empty lists skipped), or that of a wrapper it opens, or the last list of a wrapper before it.
 */
function listBefore(list: MirrorElement): MirrorElement | null {
  let cur: MirrorElement = list;
  for (let up = 0; up < LOOKAROUND; up++) {
    let prev = cur.previousSibling;
    while (prev !== null && rendersNothing(prev)) prev = prev.previousSibling;
    if (prev === null) {
      const parent = cur.parentNode;
      if (parent === null || !WRAPPERS.has(parent.tag)) return null;
      cur = parent;
      continue;
    }
    let last: MirrorNode | null = prev;
    for (let down = 0; down < LOOKAROUND && last !== null && last.nodeType === 1 && WRAPPERS.has(last.tag); down++) {
      last = last.lastChild;
      while (last !== null && rendersNothing(last)) last = last.previousSibling;
    }
    return last !== null && last.nodeType === 1 && LISTS.has(last.tag) ? last : null;
  }
  return null;
}

/** Number of the first (`first`) or last `<li>` of an ordered list; -1 without items. */
function itemNumber(list: MirrorElement, first: boolean): number {
  for (let c = first ? list.firstChild : list.lastChild; c !== null; c = first ? c.nextSibling : c.previousSibling) {
    if (c.nodeType === 1 && c.tag === 'li') return c.info.ordinal;
  }
  return -1;
}

/**
 * Whether `list`, an ordered list whose markdown follows that of ordered list `prev`, would be read with
 * numbers other than its own: CommonMark continues a list across blank lines and numbers the items from the
 * first item's number on, so `<ol start=8>` (2 items) then `<ol start=9>` would show 8, 9, 10; and two
 * `<ol>`s 1, 2 instead of 1, 1. (Adjacent bullet lists merged are the same items, only looser: left alone.)
 */
function numbersWouldChange(prev: MirrorElement, list: MirrorElement): boolean {
  if (prev.tag !== 'ol' || list.tag !== 'ol') return false;
  const last = itemNumber(prev, false);
  return last >= 0 && itemNumber(list, true) !== last + 1;
}

/**
 * Whether ordered `list` is written with the alternate delimiter (`1)`, not `1.`), which starts a new list in
 * CommonMark, because the ordered list just before it would otherwise swallow it (see numbersWouldChange).
 * The delimiters alternate along a run of such lists.
 */
function listAlternates(list: MirrorElement, ctx: ConversionContext): boolean {
  const known = ctx.altLists.get(list);
  if (known !== undefined) return known;
  // The run of adjacent lists before this one, back to the first or to one already decided (iteratively: a page
  // may hold thousands of adjacent lists).
  const chain: MirrorElement[] = [list];
  let alt = false;
  for (;;) {
    const last = chain[chain.length - 1] as MirrorElement;
    const prev = listBefore(last);
    if (prev === null || !numbersWouldChange(prev, last)) break;
    const prevKnown = ctx.altLists.get(prev);
    if (prevKnown !== undefined) {
      alt = !prevKnown;
      break;
    }
    chain.push(prev);
  }
  for (let i = chain.length - 1; i >= 0; i--) {
    ctx.altLists.set(chain[i] as MirrorElement, alt);
    alt = !alt;
  }
  return ctx.altLists.get(list) as boolean;
}

/**
 * Whether text or inline content stands directly inside the list right before this item (`<ul>text<li>`,
 * invalid but common): written as is, the item's marker would land mid-line, glued to that text.
 */
function afterStrayContent(node: MirrorElement): boolean {
  for (let p = node.previousSibling; p !== null; p = p.previousSibling) {
    if (p.nodeType === 1 && (p.tag === 'li' || LISTS.has(p.tag))) return false;
    if (p.textContent.trim() !== '') return true;
  }
  return false;
}

/** The `<li>` before `node` among its siblings, if any. */
function previousItem(node: MirrorElement): MirrorElement | null {
  for (let p = node.previousSibling; p !== null; p = p.previousSibling) if (p.nodeType === 1 && p.tag === 'li') return p;
  return null;
}


/** Emphasis-like marks: rendered once even when nested in themselves (`<b><b>x</b></b>` is `**x**`). */
function mark(ctx: ConversionContext, open: string, close = open): MirrorRule['replacement'] {
  return (content, node) => {
    if (node.info.repeatedMark) return content;
    ctx.placeholders = true;
    return wrap(content, open, close);
  };
}

/** Block rules: headings, quotes, lists, code blocks, rules and breaks. */
function blockRules(ctx: ConversionContext): Record<string, MirrorRule> {
  return {
    heading: {
      filter: tags('h1', 'h2', 'h3', 'h4', 'h5', 'h6'),
      replacement: (content, node) => {
        // A thematic break inside a heading (`<h4><hr>More posts</h4>`) is no part of its text.
        const text = content.replace(/^---$/gm, '').replace(/\s*\n\s*/g, ' ').trim();
        if (inTableCell(node, ctx)) return ` ${text} `;
        if (text === '') return '';
        // A trailing run of `#` after a space (or alone) is the optional closing sequence in CommonMark and
        // would vanish: its last `#` is escaped.
        const kept = CLOSING_HASHES.test(text) ? `${text.slice(0, -1)}\\#` : text;
        return block('#'.repeat(Number(node.tag.charAt(1))) + ' ' + kept);
      },
    },
    paragraph: {
      filter: tags('p'),
      replacement: (content) => (INVISIBLE.test(content) ? '\n\n' : block(content)),
    },
    blockquote: {
      filter: tags('blockquote'),
      replacement: (content, node) => {
        if (node.info.nest > MAX_NEST) return block(content);
        // Lines left blank but for the spaces of hard breaks (`<br><br>`) are blank lines: one at most.
        let core = content.replace(/^[ \t]+$/gm, '');
        if (!core.includes('```')) core = core.replace(/\n{3,}/g, '\n\n');
        return block(trimNewlines(core).replace(/^/gm, '> ').replace(/^> $/gm, '>'));
      },
    },
    list: {
      filter: tags('ul', 'ol', 'menu'),
      replacement: (content, node) => {
        const parent = node.parentNode;
        if (node.info.nest <= MAX_NEST && parent?.tag === 'li' && parent.lastElementChild === node) {
          // Without its final line break: the item holding it stays tight (a blank line after it would make
          // the whole outer list loose, every item a paragraph).
          return '\n' + trimNewlines(content);
        }
        if (node.info.nest <= MAX_NEST && parent !== null && LISTS.has(parent.tag)) {
          // A list directly inside a list (invalid, common): browsers show it nested under the item before it.
          const item = previousItem(node);
          if (item !== null) {
            const indent = ' '.repeat(item.info.ordinal >= 0 ? `${item.info.ordinal}. `.length : 2);
            return '\n' + trimNewlines(content).replace(/^(?=.)/gm, indent) + '\n';
          }
        }
        return block(content);
      },
    },
    listItem: {
      filter: tags('li'),
      replacement: (content, node) => {
        if (node.info.nest > MAX_NEST) return block(content);
        const list = node.parentNode;
        const alt = node.info.ordinal >= 0 && list !== null && list.tag === 'ol' && listAlternates(list, ctx);
        const marker = node.info.ordinal >= 0 ? `${node.info.ordinal}${alt ? ')' : '.'} ` : '- ';
        const core = trimNewlines(content);
        const body = core.includes('\n') ? core.replace(/\n/g, '\n' + ' '.repeat(marker.length)) : core;
        // A loose item (block content) is followed by a blank line; one after stray text starts a new block.
        const lead = afterStrayContent(node) ? '\n\n' : '';
        return lead + marker + body + (content.charCodeAt(content.length - 1) === 10 ? '\n\n' : '\n');
      },
    },
    codeBlock: {
      filter: tags('pre'),
      replacement: (_content, node) => {
        // The mirror holds a `<pre>`'s raw text as its only child (see build-mirror.ts).
        const code = node.textContent;
        if (inTableCell(node, ctx)) return renderInlineCode(code.trim());
        return renderCodeBlock(code, node.info.language);
      },
    },
    lineBreak: {
      filter: tags('br'),
      replacement: (_content, node) => (inTableCell(node, ctx) ? ' ' : '  \n'),
    },
    horizontalRule: {
      filter: tags('hr'),
      replacement: (_content, node) => (inTableCell(node, ctx) ? ' ' : '\n\n---\n\n'),
    },
  };
}

/** Inline rules: links, images, emphasis, code spans and task-list checkboxes. */
function inlineRules(ctx: ConversionContext): Record<string, MirrorRule> {
  return {
    link: { filter: tags('a'), replacement: (content, node) => renderLink(content, node, ctx) },
    image: { filter: tags('img'), replacement: (_content, node) => renderImage(node, ctx) },
    // Placeholders, turned into markers (or dropped) once the neighbours are known: see emphasis.ts.
    emphasis: { filter: tags('em', 'i', 'cite'), replacement: mark(ctx, EM_OPEN, EM_CLOSE) },
    strong: { filter: tags('strong', 'b'), replacement: mark(ctx, STRONG_OPEN, STRONG_CLOSE) },
    strikethrough: { filter: tags('del', 's', 'strike'), replacement: mark(ctx, STRIKE_OPEN, STRIKE_CLOSE) },
    code: {
      filter: tags(...CODE_SPANS),
      // Turndown puts the element's edge whitespace back around the span. Adjacent code elements
      // (`<code>A</code><code>B</code>`) are one span: two spans side by side (`` `A``B` ``) would parse as
      // one span holding the inner backticks. The first element with text writes the run, the others nothing.
      replacement: (_content, node) => {
        for (let p = node.previousSibling; isCodeSpan(p); p = p.previousSibling) if (codeText(p).trim() !== '') return '';
        let text = codeText(node);
        for (let n = node.nextSibling; isCodeSpan(n); n = n.nextSibling) text += codeText(n);
        return renderInlineCode(text.trim());
      },
    },
    checkbox: {
      filter: tags('input'),
      replacement: (_content, node) => {
        if (node.attribs.type?.toLowerCase() !== 'checkbox') return '';
        return node.attribs.checked !== undefined ? '[x] ' : '[ ] ';
      },
    },
  };
}

/**
 * The rules of one conversion, in the order turndown should try them (most frequent elements first:
 * turndown tries rules one by one for every element).
 */
export function markdownRules(ctx: ConversionContext): [string, MirrorRule][] {
  return Object.entries({ ...inlineRules(ctx), ...blockRules(ctx), ...tableRules(ctx) });
}

/** Turndown's blank and default replacements, with this package's list of block elements. */
export const blankReplacement = (_content: string, node: MirrorElement): string => (node.info.block ? '\n\n' : '');
export const defaultReplacement = (content: string, node: MirrorElement): string =>
  node.info.block ? (INVISIBLE.test(content) ? '\n\n' : block(content)) : content;
