import { MAX_NEST } from './build-mirror.js';
import { renderCodeBlock, renderInlineCode } from './code-block.js';
import type { ConversionContext, MirrorRule } from './context.js';
import { EM_CLOSE, EM_OPEN, STRIKE_CLOSE, STRIKE_OPEN, STRONG_CLOSE, STRONG_OPEN } from './emphasis.js';
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

function renderLink(content: string, node: MirrorElement, ctx: ConversionContext): string {
  const href = node.attribs.href;
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
  const title = node.attribs.title?.replace(/\s+/g, ' ').trim();
  const titlePart = title ? ` "${escapeLinkTitle(title)}"` : '';
  return wrap(text, '[', `](${escapeLinkDestination(url)}${titlePart})`);
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
  const alt = escapeMarkdown((a.alt ?? '').replace(/\s+/g, ' ').trim());
  const title = a.title?.trim();
  const titlePart = title ? ` "${escapeLinkTitle(title)}"` : '';
  return `![${alt}](${placeholder ? url : escapeLinkDestination(url)}${titlePart})`;
}

const LISTS = new Set(['ul', 'ol', 'menu']);

/** The `<li>` before `node` among its siblings, if any. */
function previousItem(node: MirrorElement): MirrorElement | null {
  for (let p = node.previousSibling; p !== null; p = p.previousSibling) if (p.nodeType === 1 && p.tag === 'li') return p;
  return null;
}

const block = (content: string): string => `\n\n${content}\n\n`;
/** Content of nothing but (zero-width) spaces: `<p>&#8203;</p>`, `<p>&nbsp;</p>` are dropped. */
const INVISIBLE = /^[\s\u200B-\u200D\u2060\uFEFF]*$/;

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
        const text = content.replace(/\s*\n\s*/g, ' ').trim();
        if (inTableCell(node, ctx)) return ` ${text} `;
        return text === '' ? '' : block('#'.repeat(Number(node.tag.charAt(1))) + ' ' + text);
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
          return '\n' + content;
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
        const marker = node.info.ordinal >= 0 ? `${node.info.ordinal}. ` : '- ';
        const core = trimNewlines(content);
        const body = core.includes('\n') ? core.replace(/\n/g, '\n' + ' '.repeat(marker.length)) : core;
        // A loose item (block content) is followed by a blank line.
        return marker + body + (content.charCodeAt(content.length - 1) === 10 ? '\n\n' : '\n');
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
      filter: tags('code', 'kbd', 'samp', 'tt'),
      // Turndown puts the element's edge whitespace back around the span.
      replacement: (_content, node) => renderInlineCode(codeText(node).trim()),
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
