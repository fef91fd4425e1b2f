import type { Block } from './blocks.js';
import type { Line, Segment } from './model.js';
import { pushSegment, trimSegments } from './lines.js';
import { escapeHtml, joinsWithoutSpace } from './text-utils.js';

/** Blocks -> the HTML body: inline links, bold and italic, lists nested by indent, tables, code. */

/** Joins the lines of a block: a space between lines, none between CJK, and "infor-" + "mation" -> "information". */
export function joinLines(lines: Line[]): Segment[] {
  const out: Segment[] = [];
  for (const line of lines) {
    const segs = line.segments.map((s) => ({ ...s }));
    const last = out.at(-1);
    const first = segs[0];
    if (last && first) {
      if (/\p{L}-$/u.test(last.text) && /^\p{Ll}/u.test(first.text)) last.text = last.text.slice(0, -1);
      else if (!joinsWithoutSpace(last.text, first.text)) pushSegment(out, { text: ' ', href: last.href === first.href ? last.href : undefined, bold: last.bold && first.bold, italic: last.italic && first.italic });
    }
    for (const s of segs) pushSegment(out, s);
  }
  trimSegments(out);
  return out;
}

/** Removes the first `n` characters of a segment list (a list item's marker). */
function dropPrefix(segments: Segment[], n: number): Segment[] {
  const out = segments.map((s) => ({ ...s }));
  let left = n;
  while (left > 0 && out.length) {
    const first = out[0]!;
    if (first.text.length <= left) {
      left -= first.text.length;
      out.shift();
    } else {
      first.text = first.text.slice(left);
      left = 0;
    }
  }
  trimSegments(out);
  return out;
}

/** Inline HTML of segments; `plain` drops bold and italic (headings are already emphasized). */
export function renderInline(segments: Segment[], plain = false): string {
  let html = '';
  for (const s of segments) {
    let h = escapeHtml(s.text);
    if (!plain && s.text.trim() !== '') {
      if (s.italic) h = `<em>${h}</em>`;
      if (s.bold) h = `<strong>${h}</strong>`;
    }
    if (s.href) h = `<a href="${escapeHtml(s.href)}">${h}</a>`;
    html += h;
  }
  return html;
}

const dirAttr = (lines: Line[]): string => (lines.filter((l) => l.rtl).length * 2 > lines.length ? ' dir="rtl"' : '');

function renderCode(lines: Line[]): string {
  let minX = Infinity;
  for (const l of lines) minX = Math.min(minX, l.x0);
  const out: string[] = [];
  let prev: Line | undefined;
  for (const l of lines) {
    if (prev && l.y0 - prev.y1 > 0.8 * l.fontSize) out.push('');
    const indent = Math.max(0, Math.min(80, Math.round((l.x0 - minX) / (0.6 * l.fontSize))));
    out.push(' '.repeat(indent) + l.text);
    prev = l;
  }
  return `<pre><code>${escapeHtml(out.join('\n'))}</code></pre>`;
}

function renderTable(block: Extract<Block, { kind: 'table' }>): string {
  const rows = block.table.rows.map((row, r) => {
    const tag = r === 0 ? 'th' : 'td';
    return `<tr>${row.map((cell) => `<${tag}>${renderInline(cell)}</${tag}>`).join('')}</tr>`;
  });
  return `<table${block.table.rtl ? ' dir="rtl"' : ''}>${rows.join('')}</table>`;
}

type Item = Extract<Block, { kind: 'item' }>;

/** Consecutive list items -> nested ul/ol: an item indented more than the current one opens a sub-list. */
function renderList(items: Item[]): string {
  let out = '';
  const stack: { x0: number; tag: string; style: string }[] = [];
  for (const item of items) {
    const first = item.lines[0]!;
    const x = first.x0;
    const em = first.fontSize;
    const tag = item.ordered ? 'ol' : 'ul';
    const open = (t: string) => `<${t}${t === 'ol' && item.start !== undefined && item.start !== 1 ? ` start="${item.start}"` : ''}${first.rtl ? ' dir="rtl"' : ''}>`;
    const content = renderInline(dropPrefix(joinLines(item.lines), item.markerLength));
    const top = stack.at(-1);
    if (!top) {
      stack.push({ x0: x, tag, style: item.style });
      out += `${open(tag)}<li>${content}`;
      continue;
    }
    if (x > top.x0 + 0.8 * em && stack.length < 6) {
      stack.push({ x0: x, tag, style: item.style });
      out += `${open(tag)}<li>${content}`;
      continue;
    }
    while (stack.length > 1 && x < stack.at(-1)!.x0 - 0.8 * em) out += `</li></${stack.pop()!.tag}>`;
    const level = stack.at(-1)!;
    if (level.style !== item.style) {
      out += `</li></${level.tag}>${open(tag)}<li>${content}`;
      level.tag = tag;
      level.style = item.style;
      level.x0 = x;
    } else out += `</li><li>${content}`;
  }
  while (stack.length) out += `</li></${stack.pop()!.tag}>`;
  return out;
}

/** Blocks -> body HTML, one block per line of output. */
export function renderBlocks(blocks: Block[]): string {
  const out: string[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    switch (block.kind) {
      case 'heading':
        out.push(`<h${block.level}${dirAttr(block.lines)}>${renderInline(joinLines(block.lines), true)}</h${block.level}>`);
        break;
      case 'paragraph':
        out.push(`<p${dirAttr(block.lines)}>${renderInline(joinLines(block.lines))}</p>`);
        break;
      case 'code':
        out.push(renderCode(block.lines));
        break;
      case 'table':
        out.push(renderTable(block));
        break;
      case 'item': {
        const items: Item[] = [block];
        while (blocks[i + 1]?.kind === 'item') items.push(blocks[++i] as Item);
        out.push(renderList(items));
        break;
      }
    }
  }
  return out.join('\n');
}
